import {
  TrackingBatch,
  TrackingMessage,
  trackingApiMessages as text,
  trackingLimits,
  type TrackingMessageType,
} from '@herald/contracts';
import { badRequest } from '../../http/errors.ts';

/** One message as Herald stores it: checked, its type settled and its time corrected for the client's clock. */
export interface ReadMessage extends TrackingMessage {
  type: TrackingMessageType;
  /** When it happened, on the server's clock. */
  at: Date;
  context: Record<string, unknown>;
  properties: Record<string, unknown>;
  traits: Record<string, unknown>;
}

export interface ReadRequest {
  messages: ReadMessage[];
  /** The write key the body names (the batch's, else its first message's). */
  writeKey: string | undefined;
}

const kb = (bytes: number) => Math.ceil(bytes / 1024);

/** The body's JSON, refused (400) when it is over 500 KB or not JSON. */
export function parseBody(body: unknown): unknown {
  const raw = typeof body === 'string' ? body : '';
  const bytes = Buffer.byteLength(raw);
  if (bytes > trackingLimits.batchBytes) throw badRequest(text.batchTooLarge(kb(bytes)));
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw badRequest(text.invalidJson);
  }
}

const timeOf = (value: string | undefined, index: number, field: string) => {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw badRequest(text.badTime(index, field));
  return ms;
};

/**
 * The messages of a call to `/v1/<type>` (one message) or `/v1/batch` (`{ batch }` or a bare list). Each is checked
 * (at most 32 KB, a userId or an anonymousId, an event name for track…); the first that fails refuses the whole call
 * with a 400 naming it, so that nothing of it is written. Times: `timestamp` (else `originalTimestamp`) plus the
 * difference between the server's `receivedAt` and the client's `sentAt`, as Segment corrects a client's clock.
 */
export function readMessages(
  json: unknown,
  kind: 'batch' | TrackingMessageType,
  receivedAt: Date,
): ReadRequest {
  if (json === null || typeof json !== 'object') throw badRequest(text.notAnObject);
  let raws: unknown[];
  let envelope: {
    sentAt?: string | undefined;
    writeKey?: string | undefined;
    context?: Record<string, unknown>;
  };
  if (kind === 'batch') {
    const parsed = TrackingBatch.safeParse(Array.isArray(json) ? { batch: json } : json);
    if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? text.notAnObject);
    if (parsed.data.batch.length > trackingLimits.batchMessages) throw badRequest(text.tooManyMessages);
    raws = parsed.data.batch;
    envelope = parsed.data;
  } else {
    if (Array.isArray(json)) throw badRequest(text.notAnObject);
    raws = [{ ...json, type: kind }];
    envelope = {};
  }
  const messages = raws.map((raw, index) => {
    const bytes = Buffer.byteLength(JSON.stringify(raw) ?? '');
    if (bytes > trackingLimits.messageBytes) throw badRequest(text.messageTooLarge(index, kb(bytes)));
    const parsed = TrackingMessage.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
      throw badRequest(text.invalidMessage(index, `${where}${issue.message}`));
    }
    const m = parsed.data;
    if (!m.type) throw badRequest(text.invalidMessage(index, 'type is missing.'));
    if (m.type === 'alias') {
      if (!m.previousId || !m.userId) throw badRequest(text.missingPreviousId(index));
    } else if (!m.userId && !m.anonymousId) throw badRequest(text.missingIdentity(index));
    if (m.type === 'track' && !m.event) throw badRequest(text.missingEvent(index));
    if (m.type === 'group' && !m.groupId) throw badRequest(text.missingGroupId(index));
    const happened = timeOf(m.timestamp ?? m.originalTimestamp, index, 'timestamp');
    const sent = timeOf(m.sentAt ?? envelope.sentAt, index, 'sentAt');
    const at =
      happened === undefined
        ? receivedAt
        : new Date(happened + (sent === undefined ? 0 : receivedAt.getTime() - sent));
    return {
      ...m,
      type: m.type,
      sentAt: m.sentAt ?? envelope.sentAt,
      at,
      context: { ...(envelope.context ?? {}), ...(m.context ?? {}) },
      properties: m.properties ?? {},
      traits: m.traits ?? {},
    };
  });
  const writeKey = envelope.writeKey ?? messages.find((m) => m.writeKey)?.writeKey;
  return { messages, writeKey };
}
