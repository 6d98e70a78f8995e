import crypto from 'node:crypto';
import { twoFactorMessages, type TwoFactorSetup, type TwoFactorStatus } from '@herald/contracts';
import QRCode from 'qrcode';
import type { Database } from '../../db/connection.ts';
import { AppError, badRequest, conflict, forbidden } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { verifyPassword } from '../../lib/passwords.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import { atRestKey, decryptAtRest, encryptAtRest } from '../../lib/sealed-tokens.ts';
import { hashToken } from '../../lib/tokens.ts';
import { matchTotp, newTotpSecret, otpauthUrl, readTotpSecret, type TotpSecret } from '../../lib/totp.ts';
import type { Services } from '../../services.ts';
import {
  accountRequiresTwoFactor,
  anyMembershipRequiresTwoFactor,
  claimTotpStep,
  countRecoveryCodesLeft,
  deleteOtherSessions,
  disableTwoFactor,
  enableTwoFactor,
  findTwoFactorUser,
  replaceRecoveryCodes,
  setAccountRequiresTwoFactor,
  setPendingSecret,
  spendRecoveryCode,
} from './two-factor.queries.ts';

type TwoFactorUser = NonNullable<Awaited<ReturnType<typeof findTwoFactorUser>>>;
type Proof = { code?: string | undefined; password?: string | undefined };

export const recoveryCodeCount = 10;
/** Code attempts per user: 10 in 15 minutes, whichever call makes them (sign-in, enrolment, turning off). */
const codeAttempts = { limit: 10, windowSeconds: 900 };
const recoveryAlphabet = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten codes of 10 characters from 31 (about 50 bits each), shown as xxxxx-xxxxx. */
function newRecoveryCodes(): string[] {
  return Array.from({ length: recoveryCodeCount }, () => {
    const chars = Array.from(
      { length: 10 },
      () => recoveryAlphabet[crypto.randomInt(recoveryAlphabet.length)],
    );
    return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
  });
}

/** What is stored of a recovery code: SHA-256 of its letters, whatever case, spaces or dashes it was typed with. */
export function recoveryCodeHash(code: string): string {
  return hashToken(code.toLowerCase().replace(/[\s-]/g, ''));
}

function secretOf(services: Services, user: TwoFactorUser): TotpSecret {
  if (!user.totpSecret) throw badRequest(twoFactorMessages.notEnrolling);
  return readTotpSecret(decryptAtRest(user.totpSecret, atRestKey(services.secret, 'totp')));
}

/** Every code attempt counts against the user's limit, on the owner connection so that a refusal keeps the count. */
export async function limitCodeAttempts(services: Services, userId: number): Promise<void> {
  await enforceRateLimit(services.db, `two-factor:${userId}`, codeAttempts.limit, codeAttempts.windowSeconds);
}

/**
 * Check an authenticator code and spend its time step: a wrong code, one outside the window either side of now, and
 * one already used (or older than the last used) are refused with the given status.
 */
export async function checkTotp(
  services: Services,
  user: TwoFactorUser,
  code: string,
  refuse: (message: string) => AppError,
): Promise<number> {
  const step = matchTotp(secretOf(services, user), code, Date.now());
  if (step === undefined) throw refuse(twoFactorMessages.wrongCode);
  if (!(await claimTotpStep(services.db, user.id, step))) throw refuse(twoFactorMessages.reusedCode);
  return step;
}

export async function checkRecoveryCode(
  services: Services,
  userId: number,
  code: string,
  refuse: (message: string) => AppError,
): Promise<void> {
  if (!(await spendRecoveryCode(services.db, userId, recoveryCodeHash(code))))
    throw refuse(twoFactorMessages.wrongRecoveryCode);
}

function refuseApiKey(session: Session): void {
  if (session.id.startsWith('api-key:')) throw forbidden(twoFactorMessages.apiKeyRefused);
}

async function userOf(services: Services, userId: number): Promise<TwoFactorUser> {
  const user = await findTwoFactorUser(services.db, userId);
  if (!user) throw new AppError('AuthError', twoFactorMessages.pendingExpired);
  return user;
}

/** A new secret kept sealed until a code confirms it; the QR code and the text an app needs. */
export async function startEnrolment(services: Services, userId: number): Promise<TwoFactorSetup> {
  const user = await userOf(services, userId);
  if (user.totpEnabledAt) throw conflict(twoFactorMessages.alreadyEnabled, 'two-factor-on');
  const secret = newTotpSecret();
  if (
    !(await setPendingSecret(services.db, userId, encryptAtRest(secret, atRestKey(services.secret, 'totp'))))
  )
    throw conflict(twoFactorMessages.alreadyEnabled, 'two-factor-on');
  const url = otpauthUrl({ issuer: 'Herald', account: user.email, secret });
  const svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return {
    secret: secret.replace(/(.{4})(?=.)/g, '$1 '),
    otpauthUrl: url,
    qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
  };
}

/** The first code turns two-factor on; answers the recovery codes, shown this once. */
export async function confirmEnrolment(
  services: Services,
  userId: number,
  code: string,
  refuse: (message: string) => AppError,
): Promise<string[]> {
  await limitCodeAttempts(services, userId);
  const user = await userOf(services, userId);
  if (user.totpEnabledAt) throw conflict(twoFactorMessages.alreadyEnabled, 'two-factor-on');
  const step = matchTotp(secretOf(services, user), code, Date.now());
  if (step === undefined) throw refuse(twoFactorMessages.wrongCode);
  const codes = newRecoveryCodes();
  if (!(await enableTwoFactor(services.db, userId, step, codes.map(recoveryCodeHash))))
    throw conflict(twoFactorMessages.alreadyEnabled, 'two-factor-on');
  return codes;
}

/** GET /v1/profile/two-factor */
export async function twoFactorStatus(
  services: Services,
  db: Database,
  session: Session,
): Promise<TwoFactorStatus> {
  const user = await userOf(services, session.userId);
  return {
    enabled: Boolean(user.totpEnabledAt),
    enabledAt: user.totpEnabledAt?.toISOString() ?? null,
    recoveryCodesLeft: user.totpEnabledAt ? await countRecoveryCodesLeft(services.db, user.id) : 0,
    requiredByAccount: await accountRequiresTwoFactor(db, session.accountId),
  };
}

/** POST /v1/profile/two-factor/setup */
export async function startProfileEnrolment(services: Services, session: Session) {
  refuseApiKey(session);
  return startEnrolment(services, session.userId);
}

/** POST /v1/profile/two-factor/confirm: on, and every other session of the user ends. */
export async function confirmProfileEnrolment(services: Services, session: Session, code: string) {
  refuseApiKey(session);
  const recoveryCodes = await confirmEnrolment(services, session.userId, code, badRequest);
  await deleteOtherSessions(services.db, session.userId, session.id);
  return { recoveryCodes };
}

/** POST /v1/profile/two-factor/disable: with a code, a recovery code or the password; other sessions end. */
export async function disableProfileTwoFactor(services: Services, session: Session, body: Proof) {
  refuseApiKey(session);
  await limitCodeAttempts(services, session.userId);
  const user = await userOf(services, session.userId);
  if (!user.totpEnabledAt) throw badRequest(twoFactorMessages.notEnabled);
  if (await anyMembershipRequiresTwoFactor(services.db, user.id))
    throw badRequest(twoFactorMessages.requiredByAccount);
  await proveUser(services, user, body);
  await disableTwoFactor(services.db, user.id);
  await deleteOtherSessions(services.db, session.userId, session.id);
}

/** The user proves it is them again: the password, an authenticator code or a recovery code (which is spent). */
async function proveUser(services: Services, user: TwoFactorUser, body: Proof): Promise<void> {
  const refuse = () => badRequest(twoFactorMessages.wrongCodeOrPassword);
  if (body.password !== undefined) {
    if (!(await verifyPassword(user.passwordHash, body.password))) throw refuse();
  } else {
    const code = body.code!.replace(/\s/g, '');
    if (/^\d{6}$/.test(code)) await checkTotp(services, user, code, refuse);
    else await checkRecoveryCode(services, user.id, code, refuse);
  }
}

/**
 * POST /v1/profile/two-factor/recovery-codes: ten new recovery codes, shown this once; the old ones stop working.
 * Proved like turning two-factor off (docs/team-and-accounts.md, "Two-factor sign-in").
 */
export async function regenerateRecoveryCodes(services: Services, session: Session, body: Proof) {
  refuseApiKey(session);
  await limitCodeAttempts(services, session.userId);
  const user = await userOf(services, session.userId);
  if (!user.totpEnabledAt) throw badRequest(twoFactorMessages.notEnabled);
  await proveUser(services, user, body);
  const recoveryCodes = newRecoveryCodes();
  if (!(await replaceRecoveryCodes(services.db, user.id, recoveryCodes.map(recoveryCodeHash))))
    throw badRequest(twoFactorMessages.notEnabled);
  return { recoveryCodes };
}

/** PUT /v1/accounts/two-factor-policy: whoever requires it of the team must have it on. */
export async function setTwoFactorPolicy(
  services: Services,
  db: Database,
  session: Session,
  required: boolean,
) {
  if (required) {
    const user = await userOf(services, session.userId);
    if (!user.totpEnabledAt) throw badRequest(twoFactorMessages.enableForYourselfFirst);
  }
  await setAccountRequiresTwoFactor(db, session.accountId, required);
  return { required };
}
