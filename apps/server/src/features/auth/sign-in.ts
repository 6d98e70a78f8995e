import { type Account, type SignInResponse, ssoMessages, twoFactorMessages } from '@herald/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, unauthorized } from '../../http/errors.ts';
import { startSession } from '../../http/session-cookie.ts';
import { openToken, sealToken } from '../../lib/sealed-tokens.ts';
import type { Services } from '../../services.ts';
import { loadAccount } from '../accounts/accounts.service.ts';
import { findDefaultMembership } from './auth.queries.ts';
import { findSsoConnectionByDomain, isAccountOwner } from './sso.queries.ts';
import {
  anyMembershipRequiresTwoFactor,
  findAcceptedMembership,
  findTwoFactorUser,
} from './two-factor.queries.ts';

// How a first factor (password, Google, a reset link, an invitation) becomes a session: at once, or through a second
// factor held in a short-lived sealed cookie, which is not a session (docs/team-and-accounts.md).

export const secondFactorCookie = 'herald_second_factor';
export const trustedDeviceCookie = 'herald_trusted_device';
const pendingMinutes = 10;
export const trustedDeviceDays = 30;

type Mode = 'code' | 'enrol';
interface Pending {
  userId: number;
  accountId: number;
}

function cookieOptions(services: Services, request: FastifyRequest, maxAgeSeconds: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: services.config.publicUrl.startsWith('https://') || request.protocol === 'https',
    maxAge: maxAgeSeconds,
  };
}

/** A session in the member's account; answers the account as sign-in does. */
export async function startSignedIn(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: number,
  membership: { accountId: number; id: number },
): Promise<Account> {
  await startSession(services, request, reply, userId, membership.accountId);
  return loadAccount(
    services.db,
    { userId, accountId: membership.accountId, teamMemberId: membership.id },
    services.db,
    services.config,
  );
}

/** The device remembered for this user, if its cookie is sealed for them and their current two-factor. */
function isTrustedDevice(services: Services, request: FastifyRequest, userId: number, enabledAt: Date) {
  const token = request.cookies[trustedDeviceCookie];
  if (!token) return false;
  const payload = openToken(token, services.secret, 'trusted-device');
  return payload?.u === userId && payload.e === enabledAt.getTime();
}

/**
 * "Require single sign-on": a user whose email domain an account signs in with SSO, and who is not an owner of that
 * account (the way back in when the provider fails), cannot sign in with a password, Google, a reset link or an
 * invitation; only through the provider.
 */
async function refuseWhenSsoRequired(services: Services, user: { id: number; email: string }) {
  const domain = user.email.toLowerCase().split('@').pop() ?? '';
  const connection = await findSsoConnectionByDomain(services.db, domain);
  if (!connection?.requireSso) return;
  if (await isAccountOwner(services.db, connection.accountId, user.id)) return;
  throw new AppError('ForbiddenError', ssoMessages.ssoRequired, { errorCode: 'sso-required' });
}

/**
 * After a first factor: a session in the account (the one given, else the one the user used last), or, when the user
 * has two-factor on and this device is not remembered, a pending second factor; when any account the user belongs to
 * requires two-factor and the user has none, a pending enrolment (else they could sign in elsewhere and switch).
 */
export async function afterFirstFactor(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: number,
  accountId?: number,
): Promise<SignInResponse> {
  const membership =
    accountId === undefined
      ? await findDefaultMembership(services.db, userId)
      : await findAcceptedMembership(services.db, userId, accountId);
  if (!membership) throw new AppError('ForbiddenError', 'This login belongs to no account any more.');
  const user = await findTwoFactorUser(services.db, userId);
  if (user) await refuseWhenSsoRequired(services, user);
  let mode: Mode | undefined;
  if (user?.totpEnabledAt) {
    if (!isTrustedDevice(services, request, userId, user.totpEnabledAt)) mode = 'code';
  } else if (await anyMembershipRequiresTwoFactor(services.db, userId)) {
    mode = 'enrol';
  }
  if (!mode) return startSignedIn(services, request, reply, userId, membership);
  const token = sealToken(
    { u: userId, a: membership.accountId, m: mode },
    services.secret,
    'second-factor',
    pendingMinutes * 60,
  );
  reply.setCookie(secondFactorCookie, token, cookieOptions(services, request, pendingMinutes * 60));
  return { secondFactor: mode };
}

/** The sign-in waiting for a second factor of this mode; 401 when there is none or it expired. */
export function readPending(services: Services, request: FastifyRequest, mode: Mode): Pending {
  const token = request.cookies[secondFactorCookie];
  const payload = token ? openToken(token, services.secret, 'second-factor') : null;
  if (!payload || payload.m !== mode || typeof payload.u !== 'number' || typeof payload.a !== 'number')
    throw unauthorized(twoFactorMessages.pendingExpired);
  return { userId: payload.u, accountId: payload.a };
}

/** The second factor was given: the pending cookie goes, the device is remembered if asked, the session starts. */
export async function finishSecondFactor(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  pending: Pending,
  rememberDevice: boolean,
): Promise<Account> {
  const membership = await findAcceptedMembership(services.db, pending.userId, pending.accountId);
  if (!membership) throw unauthorized(twoFactorMessages.pendingExpired);
  reply.clearCookie(secondFactorCookie, { path: '/' });
  if (rememberDevice) {
    const user = await findTwoFactorUser(services.db, pending.userId);
    if (user?.totpEnabledAt) {
      const token = sealToken(
        { u: pending.userId, e: user.totpEnabledAt.getTime() },
        services.secret,
        'trusted-device',
        trustedDeviceDays * 86_400,
      );
      reply.setCookie(
        trustedDeviceCookie,
        token,
        cookieOptions(services, request, trustedDeviceDays * 86_400),
      );
    }
  }
  return startSignedIn(services, request, reply, pending.userId, membership);
}
