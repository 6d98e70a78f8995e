import { twoFactorMessages, type SecondFactorBody } from '@herald/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../../http/errors.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import type { Services } from '../../services.ts';
import { finishSecondFactor, readPending } from './sign-in.ts';
import { findTwoFactorUser } from './two-factor.queries.ts';
import {
  checkRecoveryCode,
  checkTotp,
  confirmEnrolment,
  limitCodeAttempts,
  startEnrolment,
} from './two-factor.service.ts';

// The sign-in's second step, under the pending cookie that a right password (or Google, a reset, an invitation) set.

/** POST /v1/accounts/login/two-factor: a code or a recovery code; a wrong, reused or expired one is a 401. */
export async function signInWithSecondFactor(
  services: Services,
  body: SecondFactorBody,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const pending = readPending(services, request, 'code');
  await enforceRateLimit(services.db, `two-factor-ip:${request.ip}`, 50, 900);
  await limitCodeAttempts(services, pending.userId);
  const user = await findTwoFactorUser(services.db, pending.userId);
  if (!user?.totpEnabledAt) throw unauthorized(twoFactorMessages.pendingExpired);
  if (body.code !== undefined) await checkTotp(services, user, body.code, unauthorized);
  else await checkRecoveryCode(services, user.id, body.recoveryCode!, unauthorized);
  return finishSecondFactor(services, request, reply, pending, body.rememberDevice ?? false);
}

/** POST /v1/accounts/login/two-factor/setup: the account requires two-factor; this user sets it up to sign in. */
export async function startSignInEnrolment(services: Services, request: FastifyRequest) {
  const pending = readPending(services, request, 'enrol');
  return startEnrolment(services, pending.userId);
}

/** POST /v1/accounts/login/two-factor/confirm: the first code turns two-factor on and starts the session. */
export async function confirmSignInEnrolment(
  services: Services,
  body: { code: string; rememberDevice?: boolean | undefined },
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const pending = readPending(services, request, 'enrol');
  await enforceRateLimit(services.db, `two-factor-ip:${request.ip}`, 50, 900);
  const recoveryCodes = await confirmEnrolment(services, pending.userId, body.code, unauthorized);
  const account = await finishSecondFactor(services, request, reply, pending, body.rememberDevice ?? false);
  return { recoveryCodes, account };
}
