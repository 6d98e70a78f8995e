import { sessionMessages, type ChangePasswordBody, type SessionList } from '@herald/contracts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { assertStrongPassword } from '../../lib/password-strength.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import { describeUserAgent } from '../../lib/user-agent.ts';
import type { Services } from '../../services.ts';
import { findUserById, setPasswordHash } from '../accounts/users.queries.ts';
import {
  deleteOtherSessionsCounted,
  deleteSessionById,
  findSessionByHandle,
  listLiveSessions,
} from './user-sessions.queries.ts';

/** An API key is not a sign-in: the user's sessions and password are theirs to manage from the app. */
function refuseApiKey(session: Session): void {
  if (session.id.startsWith('api-key:')) throw forbidden(sessionMessages.apiKeyRefused);
}

/** GET /v1/profile/sessions: the user's live sessions in every account, the one asking marked. */
export async function listMySessions(services: Services, session: Session): Promise<SessionList> {
  refuseApiKey(session);
  const rows = await listLiveSessions(services.db, session.userId);
  return {
    sessions: rows.map((row) => ({
      id: row.handle,
      browser: describeUserAgent(row.userAgent),
      ip: row.ip,
      createdAt: row.createdAt.toISOString(),
      lastSeenAt: row.lastSeenAt.toISOString(),
      isCurrent: row.id === session.id,
    })),
  };
}

/** DELETE /v1/profile/sessions/{id}: sign one other session out; the current one signs out with "Log out". */
export async function endMySession(services: Services, session: Session, handle: string): Promise<void> {
  refuseApiKey(session);
  const row = await findSessionByHandle(services.db, session.userId, handle);
  if (!row) throw notFound(sessionMessages.notFound);
  if (row.id === session.id) throw badRequest(sessionMessages.isCurrent);
  await deleteSessionById(services.db, session.userId, row.id);
}

/** POST /v1/profile/sessions/sign-out-others */
export async function endMyOtherSessions(services: Services, session: Session) {
  refuseApiKey(session);
  return { ended: await deleteOtherSessionsCounted(services.db, session.userId, session.id) };
}

/** POST /v1/profile/password: the current password, then a strong new one; the other sessions end. */
export async function changePassword(services: Services, session: Session, body: ChangePasswordBody) {
  refuseApiKey(session);
  await enforceRateLimit(services.db, `password-change:${session.userId}`, 10, 900);
  const user = await findUserById(services.db, session.userId);
  if (!user?.passwordHash) throw badRequest(sessionMessages.noPasswordYet);
  if (!(await verifyPassword(user.passwordHash, body.currentPassword)))
    throw badRequest(sessionMessages.wrongCurrentPassword);
  assertStrongPassword(body.newPassword, [user.email, user.name]);
  await setPasswordHash(services.db, user.id, await hashPassword(body.newPassword));
  await deleteOtherSessionsCounted(services.db, session.userId, session.id);
}
