import {
  completeScopes,
  enforceScopeNeeds,
  messages,
  sessionMessages,
  teamMessages,
  type ScopeState,
  type TeamMemberView,
} from '@herald/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AcceptInvitationBody, InviteTeamMemberBody, UpdateTeamMemberBody } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { assertStrongPassword } from '../../lib/password-strength.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import { signToken, verifyToken } from '../../lib/tokens.ts';
import { queueMail } from '../../mail/mailer.ts';
import { teamInvitationEmail } from '../../mail/templates/team-invitation.ts';
import type { Services } from '../../services.ts';
import { afterFirstFactor } from '../auth/sign-in.ts';
import { findAccount } from '../accounts/accounts.queries.ts';
import { findUserByEmail, findUserById, setPasswordHash } from '../accounts/users.queries.ts';
import {
  acceptMembership,
  countOwners,
  deleteMember,
  deleteSessionsInAccount,
  findMember,
  findMemberByUser,
  insertMember,
  insertUser,
  listMembers,
  updateMember,
  type MemberRow,
} from './team.queries.ts';

const invitationDays = 7;

function toView(row: MemberRow): TeamMemberView {
  return {
    id: row.id,
    name: row.name ?? row.userName,
    email: row.email,
    accountId: row.accountId,
    data: { createdWithGoogleSignin: row.createdWithGoogle },
    accountData: {
      isOwner: row.isOwner,
      scopes: row.isOwner
        ? completeScopes().map((s) => ({ ...s, enabled: true }))
        : completeScopes(row.scopes as unknown as ScopeState[]),
    },
    invitationPending: row.acceptedAt === null,
    createdAt: row.createdAt.toISOString(),
  };
}

async function viewOf(db: Database, accountId: number, id: number): Promise<TeamMemberView> {
  const row = await findMember(db, accountId, id);
  if (!row) throw notFound(teamMessages.memberNotFound);
  return toView(row);
}

export async function listTeam(db: Database, session: Session) {
  return { teamMembers: (await listMembers(db, session.accountId)).map(toView) };
}

/** POST /v1/team-members: invite by email; a user who already has a login joins at once. */
export async function inviteMember(
  services: Services,
  db: Database,
  session: Session,
  body: z.infer<typeof InviteTeamMemberBody>,
) {
  const account = await findAccount(db, session.accountId);
  if (!account) throw unauthorized();
  let user = await findUserByEmail(db, body.email);
  if (user && (await findMemberByUser(db, session.accountId, user.id)))
    throw conflict(teamMessages.alreadyMember, 'already-member');
  if (!user) {
    const created = await insertUser(db, body.email, body.name);
    user = await findUserById(db, created.id);
  }
  const hasLogin = Boolean(user!.passwordHash || user!.googleSub);
  const scopes = enforceScopeNeeds(completeScopes(body.scopes));
  const member = await insertMember(db, {
    accountId: session.accountId,
    userId: user!.id,
    name: body.name,
    isOwner: false,
    scopes,
    invitedBy: session.teamMemberId,
    accepted: hasLogin,
  });
  const inviter = await findMember(db, session.accountId, session.teamMemberId);
  const token = signToken({ tm: member.id, a: session.accountId }, services.secret, invitationDays * 86_400);
  const link = hasLogin
    ? `${services.config.publicUrl}/`
    : `${services.config.publicUrl}/public/accept-invite?token=${encodeURIComponent(token)}`;
  const mail = teamInvitationEmail({
    accountName: account.name ?? account.email,
    inviterName: inviter?.name ?? inviter?.userName ?? inviter?.email ?? 'A teammate',
    link,
    days: invitationDays,
    hasLogin,
  });
  await queueMail(db, services.config, {
    ...mail,
    to: user!.email,
    accountId: session.accountId,
    idempotencyKey: `invite:${session.accountId}:${member.id}`,
  });
  return { teamMember: await viewOf(db, session.accountId, member.id) };
}

/** PATCH /v1/team-members/{id}: name (kept unless non-empty and changed) and scopes. */
export async function updateTeamMember(
  db: Database,
  session: Session,
  id: number,
  body: z.infer<typeof UpdateTeamMemberBody>,
) {
  const row = await findMember(db, session.accountId, id);
  if (!row) throw notFound(teamMessages.memberNotFound);
  if (body.scopes && row.isOwner) throw badRequest(teamMessages.ownerScopes);
  const name = body.name?.trim();
  await updateMember(db, session.accountId, id, {
    ...(name && name !== row.name ? { name } : {}),
    ...(body.scopes ? { scopes: enforceScopeNeeds(completeScopes(body.scopes)) } : {}),
  });
  return { teamMember: await viewOf(db, session.accountId, id) };
}

/** DELETE /v1/team-members/{id}: never the last owner; the member's sessions in this account end. */
export async function removeTeamMember(db: Database, session: Session, id: number) {
  const row = await findMember(db, session.accountId, id);
  if (!row) throw notFound(teamMessages.memberNotFound);
  if (row.isOwner && row.acceptedAt && (await countOwners(db, session.accountId)) <= 1)
    throw badRequest(teamMessages.lastOwner);
  await deleteMember(db, session.accountId, id);
  await deleteSessionsInAccount(db, session.accountId, row.userId);
}

/**
 * POST /v1/team-members/{id}/sign-out: the member's sessions in this account end (their other accounts' are not this
 * account's to end); never one's own (the profile does that), and an owner's only by an owner.
 */
export async function signOutTeamMember(db: Database, session: Session, id: number) {
  const row = await findMember(db, session.accountId, id);
  if (!row) throw notFound(teamMessages.memberNotFound);
  if (row.userId === session.userId) throw badRequest(sessionMessages.notYourself);
  if (row.isOwner && !session.isOwner) throw forbidden(sessionMessages.ownerNeedsOwner);
  await deleteSessionsInAccount(db, session.accountId, row.userId);
}

function readInvitation(services: Services, token: string) {
  const payload = verifyToken(token, services.secret);
  if (!payload || typeof payload.tm !== 'number' || typeof payload.a !== 'number')
    throw badRequest(teamMessages.invitationInvalid);
  return { memberId: payload.tm, accountId: payload.a };
}

async function pendingInvitation(services: Services, token: string) {
  const { memberId, accountId } = readInvitation(services, token);
  const member = await findMember(services.db, accountId, memberId);
  if (!member || member.acceptedAt) throw badRequest(teamMessages.invitationInvalid);
  const user = await findUserById(services.db, member.userId);
  const account = await findAccount(services.db, accountId);
  if (!user || !account) throw badRequest(teamMessages.invitationInvalid);
  return { member, user, account };
}

/** GET /v1/team-members/invitations/{token}: what the accept page shows. */
export async function invitationInfo(services: Services, token: string) {
  const { member, user, account } = await pendingInvitation(services, token);
  const inviter = member.invitedBy ? await findMember(services.db, account.id, member.invitedBy) : undefined;
  return {
    accountName: account.name,
    email: user.email,
    inviterName: inviter?.name ?? inviter?.userName ?? null,
    needsPassword: !user.passwordHash && !user.googleSub,
  };
}

/** POST /v1/team-members/invitations/accept: join, with a new password (or Google) when the user has no login. */
export async function acceptInvitation(
  services: Services,
  body: z.infer<typeof AcceptInvitationBody>,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  await enforceRateLimit(services.db, `accept-ip:${request.ip}`, 30, 900);
  const { member, user, account } = await pendingInvitation(services, body.token);
  if (body.idToken) {
    const identity = await services.google.verify(body.idToken);
    if (identity.email.toLowerCase() !== user.email.toLowerCase())
      throw new AppError('AuthError', messages.googleTokenInvalid);
    await services.db
      .updateTable('users')
      .set({ googleSub: identity.sub, createdWithGoogle: true })
      .where('id', '=', user.id)
      .execute();
  } else if (user.passwordHash) {
    if (!body.password || !(await verifyPassword(user.passwordHash, body.password)))
      throw unauthorized(messages.wrongCredentials);
  } else {
    if (!body.password) throw badRequest(teamMessages.invitationNeedsPassword);
    assertStrongPassword(body.password, [user.email, user.name]);
    await setPasswordHash(services.db, user.id, await hashPassword(body.password));
  }
  const accepted = await acceptMembership(services.db, account.id, member.id);
  if (!accepted) throw badRequest(teamMessages.invitationInvalid);
  return afterFirstFactor(services, request, reply, user.id, account.id);
}
