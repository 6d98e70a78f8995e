import crypto from 'node:crypto';
import { z } from 'zod';

/** An Amazon SNS message as posted to an HTTPS subscription (Notification, SubscriptionConfirmation, UnsubscribeConfirmation). */
export const SnsMessage = z.object({
  Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']),
  MessageId: z.string(),
  TopicArn: z.string(),
  Message: z.string(),
  Timestamp: z.string(),
  SignatureVersion: z.enum(['1', '2']),
  Signature: z.string(),
  SigningCertURL: z.string(),
  Subject: z.string().optional(),
  Token: z.string().optional(),
  SubscribeURL: z.string().optional(),
});
export type SnsMessage = z.infer<typeof SnsMessage>;

/** Where certificates come from: an HTTPS GET in production; tests hand over their own, behind the same host check. */
export type CertificateSource = (url: URL) => Promise<string>;

/** Only Amazon SNS's own hosts (sns.<region>.amazonaws.com, and .com.cn in China) serve signing certificates and subscriptions. */
const snsHost = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/** The URL when it is an SNS address over HTTPS on the default port; null for anything else. */
export function snsUrl(raw: string | undefined, kind: 'certificate' | 'subscribe'): URL | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (
    url.protocol !== 'https:' ||
    url.port !== '' ||
    url.username ||
    url.password ||
    !snsHost.test(url.hostname)
  )
    return null;
  if (kind === 'certificate' && !url.pathname.endsWith('.pem')) return null;
  return url;
}

export const fetchFromAmazon: CertificateSource = async (url) => {
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(5000) });
  if (!response.ok) throw new Error(`certificate fetch answered ${response.status}`);
  const text = await response.text();
  if (text.length > 64 * 1024) throw new Error('certificate too large');
  return text;
};

/** The fields SNS signs, in its order, each as `name\nvalue\n` (Subject only when present). */
function stringToSign(message: SnsMessage): string {
  const names =
    message.Type === 'Notification'
      ? [
          'Message',
          'MessageId',
          ...(message.Subject !== undefined ? ['Subject'] : []),
          'Timestamp',
          'TopicArn',
          'Type',
        ]
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return names.map((name) => `${name}\n${String(message[name as keyof SnsMessage] ?? '')}\n`).join('');
}

export interface SnsVerifier {
  verify(message: SnsMessage): Promise<boolean>;
}

/**
 * Check an SNS message's signature with the certificate named in it, fetched only from an SNS host over HTTPS
 * and kept for an hour (SNS signs with a handful of certificates). The certificate must be in its validity
 * period. A message whose certificate URL points anywhere else is refused before anything is fetched.
 */
export function createSnsVerifier(source: CertificateSource = fetchFromAmazon): SnsVerifier {
  const cache = new Map<string, { key: crypto.KeyObject; until: number }>();
  async function keyFor(url: URL): Promise<crypto.KeyObject | null> {
    const hit = cache.get(url.href);
    if (hit && hit.until > Date.now()) return hit.key;
    const pem = await source(url);
    const certificate = new crypto.X509Certificate(pem);
    const now = Date.now();
    if (Date.parse(certificate.validFrom) > now || Date.parse(certificate.validTo) < now) return null;
    if (cache.size > 50) cache.clear();
    cache.set(url.href, { key: certificate.publicKey, until: now + 3600_000 });
    return certificate.publicKey;
  }
  return {
    async verify(message) {
      const url = snsUrl(message.SigningCertURL, 'certificate');
      if (!url) return false;
      if (message.Type !== 'Notification' && (!message.Token || !message.SubscribeURL)) return false;
      let key: crypto.KeyObject | null;
      try {
        key = await keyFor(url);
      } catch {
        return false;
      }
      if (!key) return false;
      const algorithm = message.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256';
      try {
        return crypto.verify(
          algorithm,
          Buffer.from(stringToSign(message), 'utf8'),
          key,
          Buffer.from(message.Signature, 'base64'),
        );
      } catch {
        return false;
      }
    },
  };
}
