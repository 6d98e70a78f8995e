import crypto from 'node:crypto';

/**
 * Tokens for links in emails that must not show what they stand for: the payload (account, person,
 * address) is encrypted and authenticated with AES-256-GCM under a key derived from the server secret
 * for one purpose, so a token of one kind is worthless as another, a changed byte fails, and nobody
 * can read an id out of a link. Each carries its expiry.
 */
export type TokenPurpose =
  | 'preferences'
  | 'sender-verification'
  // Double opt-in: the confirm link of a person's confirmation email.
  | 'confirmation'
  // Sign-in cookies: the password was right, a second factor is due; a device that gave one may skip it.
  | 'second-factor'
  | 'trusted-device'
  // A single sign-on under way: the account, state, nonce and PKCE verifier until the provider sends the user back.
  | 'sso';

const keys = new Map<string, Buffer>();

function keyFor(secret: string, purpose: TokenPurpose): Buffer {
  const id = `${purpose}\u0000${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = Buffer.from(crypto.hkdfSync('sha256', secret, 'herald link tokens', `herald:${purpose}`, 32));
    keys.set(id, key);
  }
  return key;
}

/** Random IVs drawn from a buffer refilled 1,024 at a time: a bulk send seals a token per message. */
let ivPool = Buffer.alloc(0);
let ivAt = 0;
function randomIv(): Buffer {
  if (ivAt + 12 > ivPool.length) {
    ivPool = crypto.randomBytes(12 * 1024);
    ivAt = 0;
  }
  ivAt += 12;
  return ivPool.subarray(ivAt - 12, ivAt);
}

/** Seal `payload` for `ttlSeconds`: base64url(iv | ciphertext | tag). */
export function sealToken(
  payload: Record<string, unknown>,
  secret: string,
  purpose: TokenPurpose,
  ttlSeconds: number,
  now = Date.now(),
): string {
  const iv = randomIv();
  const cipher = crypto.createCipheriv('aes-256-gcm', keyFor(secret, purpose), iv);
  const plain = Buffer.from(JSON.stringify({ ...payload, exp: Math.floor(now / 1000) + ttlSeconds }));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** The payload of a token sealed with `secret` for `purpose` that has not expired; null otherwise. */
export function openToken(
  token: string,
  secret: string,
  purpose: TokenPurpose,
  now = Date.now(),
): Record<string, unknown> | null {
  if (!/^[A-Za-z0-9_-]{40,2000}$/.test(token)) return null;
  const raw = Buffer.from(token, 'base64url');
  if (raw.length < 12 + 16 + 2) return null;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', keyFor(secret, purpose), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const plain = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
    const payload = JSON.parse(plain.toString('utf8')) as unknown;
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return null;
    const record = payload as Record<string, unknown>;
    if (typeof record.exp !== 'number' || record.exp * 1000 <= now) return null;
    return record;
  } catch {
    return null;
  }
}

/** A key for encrypting secrets at rest (DKIM private keys, TOTP secrets, SSO client secrets), derived from the server secret. */
export function atRestKey(secret: string, purpose: 'dkim' | 'totp' | 'sso'): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', secret, 'herald at rest', `herald:${purpose}`, 32));
}

/** Encrypt text at rest: 'v1.' + base64url(iv | ciphertext | tag). */
export function encryptAtRest(plain: string, key: Buffer): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
}

/** Decrypt what encryptAtRest wrote; throws when the key is wrong or the text was changed. */
export function decryptAtRest(sealed: string, key: Buffer): string {
  if (!sealed.startsWith('v1.')) throw new Error('Unknown at-rest format.');
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}
