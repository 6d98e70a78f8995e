/**
 * The signed parts of tracking URLs. A message token names one delivery (account, delivery, person, email,
 * source, variant) and the second it was rendered for sending, in base 36 with a truncated HMAC-SHA256 over it; a link signature binds a destination URL
 * to the account and email that contained it, so a click goes only where that email pointed. Both are checked
 * by hand on the hot path: no JSON, no schema library, one HMAC per token.
 */
import crypto from 'node:crypto';

export type TrackedSourceKind = 'broadcast' | 'flow' | 'transactional' | 'test';

/** The delivery a tracking URL stands for. */
export interface TrackedRef {
  accountId: number;
  deliveryId: number;
  personId: number;
  emailId: number;
  sourceKind: TrackedSourceKind;
  sourceId: number;
  variant: number;
  /** A flow's mail: the flow of the send step that is its source (sourceId). Absent in tokens made before flows. */
  flowId?: number;
}

/** A decoded message token: the delivery and when its message was made (Unix seconds). */
export interface DecodedMessage extends TrackedRef {
  sentAt: number;
}

const kindChar: Record<TrackedSourceKind, string> = {
  broadcast: 'b',
  flow: 'f',
  transactional: 't',
  test: 'x',
};
const charKind: Record<string, TrackedSourceKind> = {
  b: 'broadcast',
  f: 'flow',
  t: 'transactional',
  x: 'test',
};

/** Bytes of HMAC kept: 128 bits, 22 base64url characters. */
const signatureBytes = 16;
const signatureLength = 22;
/** A message token is never longer than this (the kind, up to eight base-36 numbers of at most 11 digits, the separators and the signature). */
export const maxMessageTokenLength = 2 + 8 * 12 + signatureLength;
/** The longest destination URL a click link carries; longer ones stay as written (not tracked). */
export const maxLinkLength = 4000;

const keys = new Map<string, crypto.KeyObject>();

/** The HMAC key for tracking, derived from the server secret once per secret. */
function keyFor(secret: string): crypto.KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.createSecretKey(crypto.createHash('sha256').update(`herald-tracking:${secret}`).digest());
    if (keys.size > 8) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

function sign(secret: string, text: string): string {
  return crypto
    .createHmac('sha256', keyFor(secret))
    .update(text)
    .digest()
    .subarray(0, signatureBytes)
    .toString('base64url');
}

/** Equal in time that does not depend on where they differ (both are 22 base64url characters). */
function sameSignature(given: string, expected: string): boolean {
  if (given.length !== signatureLength) return false;
  let diff = 0;
  for (let i = 0; i < signatureLength; i++) diff |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}

/**
 * `b.1.2s.5.3.7.0.t4k2p1.<signature>`: kind, then account, delivery, person, email, source, variant and the time
 * of sending (Unix seconds, `nowMs` rounded down) in base 36; a flow's mail adds its flow id after the time.
 */
export function encodeMessage(secret: string, ref: TrackedRef, nowMs: number): string {
  const flow = ref.sourceKind === 'flow' && ref.flowId !== undefined ? `.${ref.flowId.toString(36)}` : '';
  const payload = `${kindChar[ref.sourceKind]}.${ref.accountId.toString(36)}.${ref.deliveryId.toString(36)}.${ref.personId.toString(36)}.${ref.emailId.toString(36)}.${ref.sourceId.toString(36)}.${ref.variant.toString(36)}.${Math.floor(nowMs / 1000).toString(36)}${flow}`;
  return `${payload}.${sign(secret, `m.${payload}`)}`;
}

// An ad-hoc transactional email's id is negative (contracts' adHocEmailId): its tokens carry a minus sign.
const base36 = /^-?[0-9a-z]{1,11}$/;

function number36(text: string): number | null {
  if (!base36.test(text)) return null;
  const value = parseInt(text, 36);
  return Number.isSafeInteger(value) ? value : null;
}

/** The delivery a message token names, or null when it is malformed or its signature does not match. */
export function decodeMessage(secret: string, token: string): DecodedMessage | null {
  if (token.length > maxMessageTokenLength) return null;
  const parts = token.split('.');
  // Eight numbers for a flow's mail (its flow id last), seven for the rest and for tokens made before flows.
  if (parts.length !== 9 && parts.length !== 10) return null;
  const kind = Object.hasOwn(charKind, parts[0]!) ? charKind[parts[0]!] : undefined;
  if (!kind || (parts.length === 10 && kind !== 'flow')) return null;
  const last = parts.length - 1;
  const numbers: number[] = [];
  for (let i = 1; i < last; i++) {
    const value = number36(parts[i]!);
    if (value === null) return null;
    numbers.push(value);
  }
  const payload = token.slice(0, token.length - parts[last]!.length - 1);
  if (!sameSignature(parts[last]!, sign(secret, `m.${payload}`))) return null;
  const [accountId, deliveryId, personId, emailId, sourceId, variant, sentAt, flowId] = numbers as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number | undefined,
  ];
  return {
    accountId,
    deliveryId,
    personId,
    emailId,
    sourceKind: kind,
    sourceId,
    variant,
    sentAt,
    ...(flowId !== undefined ? { flowId } : {}),
  };
}

/** The signature of a destination for one account's email: the same for every recipient. */
export function signLink(secret: string, accountId: number, emailId: number, url: string): string {
  return sign(secret, `l.${accountId}.${emailId}.${url}`);
}

/**
 * Expected link signatures by secret, then account, email and URL: every recipient of an email clicks the same few
 * links, so a click costs a map lookup rather than an HMAC. The oldest go past 10,000 a secret.
 */
const linkSignatures = new Map<string, Map<string, string>>();
const linkCacheLimit = 10_000;

export function verifyLink(
  secret: string,
  accountId: number,
  emailId: number,
  url: string,
  signature: string,
): boolean {
  if (signature.length !== signatureLength || url.length > maxLinkLength) return false;
  let known = linkSignatures.get(secret);
  if (!known) {
    if (linkSignatures.size > 8) linkSignatures.clear();
    known = new Map();
    linkSignatures.set(secret, known);
  }
  const key = `${accountId}.${emailId}.${url}`;
  let expected = known.get(key);
  if (expected === undefined) {
    expected = signLink(secret, accountId, emailId, url);
    if (known.size >= linkCacheLimit) known.delete(known.keys().next().value!);
    known.set(key, expected);
  }
  return sameSignature(signature, expected);
}
