import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { hashToken, randomToken } from '../lib/tokens.ts';
import {
  deleteSession,
  findSession,
  insertSession,
  sessionLifetimeDays,
  touchSession,
} from './sessions.queries.ts';
import type { Session } from './route.ts';
import { writeAuditEntry } from './audit.ts';

export const sessionCookieName = 'herald_session';

function cookieOptions(services: Services, request: FastifyRequest) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    // Secure whenever the app is reached over https (directly or behind a proxy that says so).
    secure: services.config.publicUrl.startsWith('https://') || request.protocol === 'https',
    maxAge: sessionLifetimeDays * 24 * 3600,
  };
}

/** Create a server-side session for the user in the account and set its cookie. */
export async function startSession(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: number,
  accountId: number,
): Promise<void> {
  const token = randomToken();
  await insertSession(services.db, {
    id: hashToken(token),
    userId,
    accountId,
    userAgent: request.headers['user-agent']?.slice(0, 500) ?? null,
    ip: request.ip,
  });
  // Every way in (password, Google, a second factor, a reset link, an invitation, a new account) ends here.
  await writeSignInEntry(services, request, userId, accountId, 'sign in');
  reply.setCookie(sessionCookieName, token, cookieOptions(services, request));
}

/** The session named by the request's cookie, if it is live. */
export async function readSession(services: Services, request: FastifyRequest): Promise<Session | undefined> {
  const token = request.cookies[sessionCookieName];
  if (!token || token.length > 200) return undefined;
  const id = hashToken(token);
  const row = await findSession(services.db, id);
  if (!row) return undefined;
  await touchSession(services.db, id);
  return {
    id,
    userId: row.userId,
    accountId: row.accountId,
    teamMemberId: row.teamMemberId,
    isOwner: row.isOwner,
    scopes: row.scopes,
  };
}

/** Delete the request's session, if any, and clear the cookie. */
export async function endSession(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const token = request.cookies[sessionCookieName];
  if (token) {
    const row = await deleteSession(services.db, hashToken(token));
    if (row) await writeSignInEntry(services, request, row.userId, row.accountId, 'sign out');
  }
  reply.clearCookie(sessionCookieName, { path: '/' });
}

/** Sign-ins and sign-outs in the account's audit log, with the route that started or ended the session. */
async function writeSignInEntry(
  services: Services,
  request: FastifyRequest,
  userId: number,
  accountId: number,
  what: 'sign in' | 'sign out',
): Promise<void> {
  await writeAuditEntry(services.db, {
    accountId,
    session: { id: 'session', userId },
    ip: request.ip,
    action: `${what} (${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]})`,
    resourceType: 'session',
    resourceId: null,
    changes: null,
  });
}
