import { messages, type LoginBody } from '@herald/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, notFound, unauthorized } from '../../http/errors.ts';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { assertStrongPassword } from '../../lib/password-strength.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import { hashToken, randomToken, signToken, verifyToken } from '../../lib/tokens.ts';
import type { Services } from '../../services.ts';
import { passwordResetEmail } from '../../mail/templates/password-reset.ts';
import { queueMail } from '../../mail/mailer.ts';
import { markPasswordSetOnOwnedAccounts } from '../accounts/accounts.queries.ts';
import { findUserByEmail, setPasswordHash } from '../accounts/users.queries.ts';
import { consumePasswordReset, deleteSessionsOfUser, insertPasswordReset } from './auth.queries.ts';
import { afterFirstFactor } from './sign-in.ts';

const resetTtlMinutes = 60;

/** POST /v1/accounts/login/ */
export async function login(
  services: Services,
  body: LoginBody,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const email = body.email.trim().toLowerCase();
  await enforceRateLimit(services.db, `login-ip:${request.ip}`, 50, 900);
  await enforceRateLimit(services.db, `login:${email}`, 10, 900);
  const user = await findUserByEmail(services.db, email);
  if (!user) {
    await burnPasswordCheck(body.password);
    throw unauthorized(messages.wrongCredentials);
  }
  if (!(await verifyPassword(user.passwordHash, body.password)))
    throw unauthorized(messages.wrongCredentials);
  return afterFirstFactor(services, request, reply, user.id);
}

/** POST /v1/accounts/login/google */
export async function loginWithGoogle(
  services: Services,
  idToken: string,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  await enforceRateLimit(services.db, `login-ip:${request.ip}`, 50, 900);
  const identity = await services.google.verify(idToken);
  const user = await findUserByEmail(services.db, identity.email);
  if (!user) throw notFound(messages.googleNoAccount);
  if (!user.googleSub) {
    await services.db
      .updateTable('users')
      .set({ googleSub: identity.sub })
      .where('id', '=', user.id)
      .execute();
  } else if (user.googleSub !== identity.sub) {
    throw unauthorized(messages.googleTokenInvalid);
  }
  return afterFirstFactor(services, request, reply, user.id);
}

/**
 * POST /v1/accounts/request-reset-password: mails a signed, single-use link when the email has a
 * login; answers the same either way, so the response tells nothing about who has an account.
 */
export async function requestPasswordReset(services: Services, email: string, request: FastifyRequest) {
  await enforceRateLimit(services.db, `reset-ip:${request.ip}`, 20, 900);
  await enforceRateLimit(services.db, `reset:${email.toLowerCase()}`, 5, 900);
  const user = await findUserByEmail(services.db, email);
  if (user) {
    const resetId = randomToken(24);
    const token = signToken({ r: resetId }, services.secret, resetTtlMinutes * 60);
    const link = `${services.config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
    const mail = passwordResetEmail(link, resetTtlMinutes);
    await services.db.transaction().execute(async (trx) => {
      await insertPasswordReset(trx, {
        id: hashToken(resetId),
        userId: user.id,
        ttlSeconds: resetTtlMinutes * 60,
      });
      await queueMail(trx, services.config, {
        ...mail,
        to: user.email,
        idempotencyKey: `password-reset:${hashToken(resetId)}`,
      });
    });
  }
  return { message: messages.resetRequested };
}

/**
 * POST /v1/accounts/reset-password: new password, every other session revoked, a fresh one started (after the second
 * factor when the user has two-factor on: a reset link proves the mailbox, not the second factor).
 */
export async function resetPassword(
  services: Services,
  body: { token: string; password: string },
  request: FastifyRequest,
  reply: FastifyReply,
) {
  await enforceRateLimit(services.db, `reset-ip:${request.ip}`, 20, 900);
  const payload = verifyToken(body.token, services.secret);
  if (!payload || typeof payload.r !== 'string') throw badRequest(messages.resetTokenInvalid);
  // Before the link is spent: a refused password leaves it usable.
  assertStrongPassword(body.password);
  const passwordHash = await hashPassword(body.password);
  const userId = await services.db.transaction().execute(async (trx) => {
    const id = await consumePasswordReset(trx, hashToken(payload.r as string));
    if (id === undefined) return undefined;
    await setPasswordHash(trx, id, passwordHash);
    await markPasswordSetOnOwnedAccounts(trx, id);
    await deleteSessionsOfUser(trx, id);
    return id;
  });
  if (userId === undefined) throw badRequest(messages.resetTokenInvalid);
  return afterFirstFactor(services, request, reply, userId);
}
