/**
 * The identity token an email click hands to the customer's site: `hrld_id=<account>.<person>.<expiry>.<signature>`
 * with the numbers in base 36 and a truncated HMAC-SHA256 under a key derived for this use only, so a tracking or
 * session token never passes for one. The site script sends it back with its events and Herald knows the reader
 * without the address ever appearing in a URL.
 */
import crypto from 'node:crypto';

/** How long a link from an email identifies its reader. */
export const identityTtlSeconds = 30 * 24 * 3600;
/** Bytes of HMAC kept: 128 bits, 22 base64url characters. */
const signatureLength = 22;
/** Three base-36 numbers of at most 11 digits, their separators and the signature. */
export const maxIdentityTokenLength = 3 * 12 + signatureLength;

const keys = new Map<string, crypto.KeyObject>();

function keyFor(secret: string): crypto.KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.createSecretKey(
      crypto.createHash('sha256').update(`herald-visitor-identity:${secret}`).digest(),
    );
    if (keys.size > 8) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

function sign(secret: string, payload: string): string {
  return crypto
    .createHmac('sha256', keyFor(secret))
    .update(payload)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

/** A URL-safe token naming one person of one account, valid for 30 days from `nowMs`. */
export function identityToken(
  secret: string,
  accountId: number,
  personId: number,
  nowMs = Date.now(),
): string {
  const expires = Math.floor(nowMs / 1000) + identityTtlSeconds;
  const payload = `${accountId.toString(36)}.${personId.toString(36)}.${expires.toString(36)}`;
  return `${payload}.${sign(secret, payload)}`;
}

const base36 = /^[0-9a-z]{1,11}$/;

/** The account and person of a token signed with `secret` that has not expired at `nowMs`, else null. */
export function readIdentityToken(
  secret: string,
  token: string,
  nowMs = Date.now(),
): { accountId: number; personId: number } | null {
  if (typeof token !== 'string' || token.length > maxIdentityTokenLength) return null;
  const parts = token.split('.');
  if (parts.length !== 4) return null;
  const [account, person, expires, signature] = parts as [string, string, string, string];
  if (
    !base36.test(account) ||
    !base36.test(person) ||
    !base36.test(expires) ||
    signature.length !== signatureLength
  )
    return null;
  const expected = sign(secret, `${account}.${person}.${expires}`);
  if (!crypto.timingSafeEqual(Buffer.from(signature, 'latin1'), Buffer.from(expected, 'latin1'))) return null;
  const accountId = parseInt(account, 36);
  const personId = parseInt(person, 36);
  if (!Number.isSafeInteger(accountId) || !Number.isSafeInteger(personId) || accountId <= 0 || personId <= 0)
    return null;
  if (parseInt(expires, 36) * 1000 <= nowMs) return null;
  return { accountId, personId };
}
