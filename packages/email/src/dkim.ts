import crypto from 'node:crypto';

export interface DkimKey {
  domainName: string;
  keySelector: string;
  /** PEM (PKCS#8 or PKCS#1) RSA private key. */
  privateKey: string;
}

/** Headers signed when present: those a forger would change, and the one-click unsubscribe pair Gmail requires signed. */
const signedHeaders = [
  'from',
  'to',
  'subject',
  'date',
  'message-id',
  'reply-to',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'mime-version',
  'content-type',
];

/** RFC 6376 §3.4.4 relaxed body: whitespace runs to one space, none at line ends, no empty lines at the end. */
function relaxedBody(body: string): string {
  const lines = body.split('\r\n').map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines.length ? `${lines.join('\r\n')}\r\n` : '';
}

/** RFC 6376 §3.4.2 relaxed header: lower-case name, unfolded value with whitespace runs as one space, trimmed. */
function relaxedHeader(name: string, value: string): string {
  return `${name.toLowerCase()}:${value
    .replace(/\r\n(?=[ \t])/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim()}`;
}

const keyCache = new Map<string, crypto.KeyObject>();

function keyOf(pem: string): crypto.KeyObject {
  let key = keyCache.get(pem);
  if (!key) {
    key = crypto.createPrivateKey(pem);
    if (keyCache.size > 100) keyCache.clear();
    keyCache.set(pem, key);
  }
  return key;
}

/**
 * Sign a MIME message (CRLF line ends, as packages/email toMime writes it) with DKIM, rsa-sha256 and
 * relaxed/relaxed canonicalisation, and return it with its DKIM-Signature header first.
 */
export function dkimSign(raw: string, key: DkimKey, now = Date.now()): string {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split + 4);
  // Unfolded header fields in order; the last instance of a name is the one signed first (RFC 6376 §5.4.2).
  const fields = head.split(/\r\n(?![ \t])/).map((field) => {
    const colon = field.indexOf(':');
    return { name: field.slice(0, colon).trim(), value: field.slice(colon + 1) };
  });
  const present = signedHeaders.filter((name) => fields.some((f) => f.name.toLowerCase() === name));
  const bodyHash = crypto.createHash('sha256').update(relaxedBody(body)).digest('base64');
  const tags = `v=1; a=rsa-sha256; c=relaxed/relaxed; d=${key.domainName}; s=${key.keySelector}; t=${Math.floor(now / 1000)}; h=${present.join(':')}; bh=${bodyHash}; b=`;
  const canonical = present.map((name) => {
    const field = [...fields].reverse().find((f) => f.name.toLowerCase() === name)!;
    return `${relaxedHeader(field.name, field.value)}\r\n`;
  });
  const signer = crypto.createSign('RSA-SHA256');
  signer.update(canonical.join('') + relaxedHeader('DKIM-Signature', tags));
  const signature = signer.sign(keyOf(key.privateKey), 'base64');
  const folded = signature.replace(/.{1,72}/g, '$&\r\n    ').trimEnd();
  return `DKIM-Signature: ${tags}\r\n    ${folded}\r\n${raw}`;
}
