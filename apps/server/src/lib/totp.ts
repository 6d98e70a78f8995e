import { HOTP, Secret, TOTP } from 'otpauth';

// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP) through `otpauth` 9.5 (docs/architecture.md's fixed
// choice): HMAC-SHA1, 30-second steps, 6 digits, what every authenticator app reads from an otpauth:// address. This
// wrapper fixes those parameters for the product and answers the time step a code matched, so that the caller can
// refuse it a second time. Tested against the RFC's Appendix B vectors (test/totp.test.ts).

export const totpStepSeconds = 30;
export const totpDigits = 6;
/** Steps either side of the current one a code may come from: a phone's clock a little off still signs in. */
export const totpWindow = 1;

export type TotpSecret = Secret;
export type TotpAlgorithm = 'SHA1' | 'SHA256' | 'SHA512';

/** A new random secret as base32 (RFC 4648, how apps take it): 20 bytes, the HMAC-SHA1 key size RFC 4226 advises. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** A stored or typed base32 secret (case, spaces and padding ignored); throws on any other character. */
export function readTotpSecret(base32: string): TotpSecret {
  return Secret.fromBase32(base32.toUpperCase().replace(/[\s=]/g, ''));
}

/** A secret from raw key bytes (the RFC's test seeds). */
export function totpSecretFromBytes(bytes: Uint8Array): TotpSecret {
  return new Secret({ buffer: Uint8Array.from(bytes).buffer });
}

/** The time step a moment falls in. */
export function totpStep(nowMs: number): number {
  return TOTP.counter({ period: totpStepSeconds, timestamp: nowMs });
}

/** HOTP (RFC 4226): the code for one counter (time step). */
export function hotpCode(
  secret: TotpSecret,
  counter: number,
  digits = totpDigits,
  algorithm: TotpAlgorithm = 'SHA1',
): string {
  return HOTP.generate({ secret, counter, digits, algorithm });
}

/** The code for a moment. */
export function totpCode(
  secret: TotpSecret,
  nowMs: number,
  digits = totpDigits,
  algorithm: TotpAlgorithm = 'SHA1',
): string {
  return TOTP.generate({ secret, timestamp: nowMs, digits, algorithm, period: totpStepSeconds });
}

/**
 * The step whose code `code` is, within `totpWindow` steps of now, or undefined. The caller records the step it
 * accepted, so that the same code (or an older one) is refused after a sign-in. otpauth compares each candidate in
 * constant time.
 */
export function matchTotp(secret: TotpSecret, code: string, nowMs: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = TOTP.validate({
    token: code,
    secret,
    timestamp: nowMs,
    window: totpWindow,
    digits: totpDigits,
    period: totpStepSeconds,
    algorithm: 'SHA1',
  });
  return delta === null ? undefined : totpStep(nowMs) + delta;
}

/** The otpauth:// address an authenticator app reads from the QR code. */
export function otpauthUrl(options: { issuer: string; account: string; secret: string }): string {
  return new TOTP({
    issuer: options.issuer,
    label: options.account,
    secret: readTotpSecret(options.secret),
    algorithm: 'SHA1',
    digits: totpDigits,
    period: totpStepSeconds,
  }).toString();
}
