import crypto from 'node:crypto';
import { z } from 'zod';
import type { Feedback } from './feedback.service.ts';
import { returnedMessageIdIn } from './reports.ts';

/** Equal strings in constant time (compared as digests, so lengths leak nothing either). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest();
  return crypto.timingSafeEqual(digest(a), digest(b));
}

const str = z.string().catch('');

// Amazon SES notifications (the SNS Message, itself JSON): both the notification and the event-publishing shapes.
const SesNotification = z.object({
  notificationType: z.string().optional(),
  eventType: z.string().optional(),
  mail: z
    .object({
      headers: z.array(z.object({ name: str, value: str })).optional(),
      commonHeaders: z.object({ messageId: z.string().optional() }).loose().optional(),
    })
    .loose()
    .optional(),
  bounce: z
    .object({
      bounceType: str,
      bounceSubType: str,
      bouncedRecipients: z.array(
        z
          .object({ emailAddress: str, status: z.string().optional(), diagnosticCode: z.string().optional() })
          .loose(),
      ),
    })
    .loose()
    .optional(),
  complaint: z
    .object({
      complainedRecipients: z.array(z.object({ emailAddress: str }).loose()),
      complaintFeedbackType: z.string().optional(),
    })
    .loose()
    .optional(),
});

/** An SES Bounce or Complaint notification as reports; Delivery and other types carry none. */
export function fromSes(message: string): Feedback[] {
  let parsed: z.infer<typeof SesNotification>;
  try {
    parsed = SesNotification.parse(JSON.parse(message));
  } catch {
    return [];
  }
  const type = parsed.notificationType ?? parsed.eventType;
  const header = parsed.mail?.headers?.find((h) => h.name.toLowerCase() === 'message-id')?.value;
  const messageId = header ?? parsed.mail?.commonHeaders?.messageId ?? null;
  if (type === 'Bounce' && parsed.bounce) {
    const kind = parsed.bounce.bounceType === 'Permanent' ? 'hard' : 'soft';
    return parsed.bounce.bouncedRecipients.map((r) => ({
      messageId,
      recipient: r.emailAddress,
      kind,
      detail:
        [r.status, r.diagnosticCode].filter(Boolean).join(' ') ||
        `${parsed.bounce!.bounceType} ${parsed.bounce!.bounceSubType}`.trim(),
      source: 'ses',
    }));
  }
  if (type === 'Complaint' && parsed.complaint) {
    return parsed.complaint.complainedRecipients.map((r) => ({
      messageId,
      recipient: r.emailAddress,
      kind: 'complaint' as const,
      detail: parsed.complaint!.complaintFeedbackType ?? 'complaint',
      source: 'ses',
    }));
  }
  return [];
}

// Postmark's Bounce and SpamComplaint webhooks.
const PostmarkRecord = z
  .object({
    RecordType: str,
    Type: str,
    Email: str,
    Description: str,
    Details: str,
    MessageID: str,
    Content: z.string().optional(),
    Metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

const postmarkHard = new Set(['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated']);
const postmarkSoft = new Set(['SoftBounce', 'Transient', 'DnsError', 'Blocked']);

/**
 * A Postmark bounce or spam complaint. Postmark names the message by its own id; Herald's Message-ID comes from
 * the bounce dump in `Content` ("include bounce content" on the webhook) or from `Metadata["herald-message-id"]`.
 */
export async function fromPostmark(body: unknown): Promise<Feedback[]> {
  const parsed = PostmarkRecord.safeParse(body);
  if (!parsed.success) return [];
  const r = parsed.data;
  let kind: Feedback['kind'] | null = null;
  if (r.RecordType === 'SpamComplaint' || r.Type === 'SpamComplaint') kind = 'complaint';
  else if (postmarkHard.has(r.Type)) kind = 'hard';
  else if (postmarkSoft.has(r.Type)) kind = 'soft';
  if (!kind || !r.Email) return [];
  const fromMetadata = r.Metadata?.['herald-message-id'];
  let messageId = typeof fromMetadata === 'string' ? fromMetadata : null;
  if (!messageId && r.Content) messageId = await returnedMessageIdIn(r.Content).catch(() => null);
  return [
    {
      messageId,
      recipient: r.Email,
      kind,
      detail: [r.Type, r.Details || r.Description].filter(Boolean).join(': '),
      source: 'postmark',
    },
  ];
}

// SendGrid's event webhook: an array of events.
const SendgridEvent = z
  .object({
    event: str,
    email: str,
    type: z.string().optional(),
    status: z.string().optional(),
    reason: z.string().optional(),
    response: z.string().optional(),
    'smtp-id': z.string().optional(),
  })
  .loose();

/** SendGrid bounce (type blocked: soft), deferred (soft) and spamreport events; `smtp-id` is the Message-ID. */
export function fromSendgrid(body: unknown): Feedback[] {
  const events = z.array(z.unknown()).safeParse(body);
  if (!events.success) return [];
  const reports: Feedback[] = [];
  for (const item of events.data) {
    const parsed = SendgridEvent.safeParse(item);
    if (!parsed.success || !parsed.data.email) continue;
    const e = parsed.data;
    let kind: Feedback['kind'] | null = null;
    if (e.event === 'bounce') kind = e.type === 'blocked' ? 'soft' : 'hard';
    else if (e.event === 'deferred') kind = 'soft';
    else if (e.event === 'spamreport') kind = 'complaint';
    if (!kind) continue;
    const detail = [e.status, e.reason ?? e.response].filter(Boolean).join(' ') || e.event;
    reports.push({ messageId: e['smtp-id'] ?? null, recipient: e.email, kind, detail, source: 'sendgrid' });
  }
  return reports;
}

/**
 * SendGrid's signed event webhook: an ECDSA (P-256, SHA-256) signature, base64 DER, over the timestamp header
 * followed by the exact body bytes, checked with the verification key from the SendGrid settings (base64 DER or PEM).
 */
export function sendgridSignatureValid(
  publicKey: string,
  rawBody: string,
  signature: string | undefined,
  timestamp: string | undefined,
): boolean {
  if (!signature || !timestamp) return false;
  try {
    const key = publicKey.includes('BEGIN PUBLIC KEY')
      ? crypto.createPublicKey(publicKey)
      : crypto.createPublicKey({
          key: Buffer.from(publicKey.replace(/\s+/g, ''), 'base64'),
          format: 'der',
          type: 'spki',
        });
    return crypto.verify(
      'sha256',
      Buffer.from(timestamp + rawBody, 'utf8'),
      key,
      Buffer.from(signature, 'base64'),
    );
  } catch {
    return false;
  }
}

// Mailgun's webhooks (JSON): the signature travels in the body beside the event.
export const MailgunBody = z.object({
  signature: z.object({
    timestamp: z.union([z.string(), z.number()]).transform(String),
    token: z.string(),
    signature: z.string(),
  }),
  'event-data': z
    .object({
      event: str,
      severity: z.string().optional(),
      recipient: str,
      reason: z.string().optional(),
      'delivery-status': z
        .object({
          code: z.union([z.number(), z.string()]).optional(),
          message: z.string().optional(),
          description: z.string().optional(),
        })
        .loose()
        .optional(),
      message: z
        .object({ headers: z.record(z.string(), z.unknown()).optional() })
        .loose()
        .optional(),
    })
    .loose(),
});

/** HMAC-SHA256 of timestamp + token with the webhook signing key, hex, compared in constant time. */
export function mailgunSignatureValid(signingKey: string, body: z.infer<typeof MailgunBody>): boolean {
  const expected = crypto
    .createHmac('sha256', signingKey)
    .update(body.signature.timestamp + body.signature.token)
    .digest('hex');
  return sameSecret(expected, body.signature.signature.toLowerCase());
}

/** Mailgun `failed` (permanent: hard, temporary: soft) and `complained` events. */
export function fromMailgun(body: z.infer<typeof MailgunBody>): Feedback[] {
  const e = body['event-data'];
  let kind: Feedback['kind'] | null = null;
  if (e.event === 'failed') kind = e.severity === 'temporary' ? 'soft' : 'hard';
  else if (e.event === 'complained') kind = 'complaint';
  if (!kind || !e.recipient) return [];
  const header = e.message?.headers?.['message-id'];
  const status = e['delivery-status'];
  const detail =
    [status?.code, status?.description || status?.message || e.reason]
      .filter((v) => v !== undefined && v !== '')
      .join(' ') || e.event;
  return [
    {
      messageId: typeof header === 'string' ? header : null,
      recipient: e.recipient,
      kind,
      detail,
      source: 'mailgun',
    },
  ];
}

/** `Authorization: Basic base64(user:password)` against the configured `user:password`. */
export function basicAuthValid(expected: string, authorization: string | undefined): boolean {
  const encoded = /^Basic\s+(.+)$/i.exec(authorization ?? '')?.[1];
  if (!encoded) return false;
  return sameSecret(Buffer.from(encoded.trim(), 'base64').toString('utf8'), expected);
}
