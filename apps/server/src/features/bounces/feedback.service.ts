import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import type { Services } from '../../services.ts';
import { suppress } from '../suppressions/suppressions.service.ts';

export type FeedbackKind = 'hard' | 'soft' | 'complaint';

/** One report about one recipient of one message, from a DSN, an ARF report or a provider's webhook. */
export interface Feedback {
  /** The Message-ID the message went out with, `<hex@host>` (angle brackets optional). */
  messageId?: string | null;
  recipient: string;
  kind: FeedbackKind;
  /** What the receiving server or the provider said (status code, diagnostic, complaint type). */
  detail: string;
  /** Where the report came from: dsn, arf, ses, postmark, sendgrid, mailgun. */
  source: string;
}

export type FeedbackOutcome =
  | { status: 'recorded'; accountId: number; personId: number | null; suppressed: boolean }
  | { status: 'duplicate'; accountId: number }
  | { status: 'unknown-message'; messageId: string | null }
  | { status: 'no-account'; messageId: string };

interface FoundDelivery {
  accountId: number;
  personId: number | null;
  toAddress: string;
  subject: Record<string, number>;
}

/** `<id@host>` however the report spells it: with or without brackets, spaces, or a `mailto`-ish prefix. */
export function normalizeMessageId(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const trimmed = raw.trim().replace(/^<|>$/g, '').trim();
  if (!trimmed || trimmed.length > 500 || /[\s<>]/.test(trimmed)) return null;
  return `<${trimmed}>`;
}

/** What an event's data says about the message's source, as the `sent` events spell it. */
function subjectOf(kind: string, sourceId: number, emailId: number): Record<string, number> {
  const key = kind === 'broadcast' ? 'broadcastId' : kind === 'flow' ? 'flowId' : 'sourceId';
  return { [key]: sourceId, emailId };
}

/** The delivery a Message-ID belongs to: the send queue first, then test sends and system mail. */
async function findDelivery(db: Database, messageId: string): Promise<FoundDelivery | 'no-account' | null> {
  const queued = await db
    .selectFrom('deliveries')
    .select(['accountId', 'personId', 'toAddress', 'sourceKind', 'sourceId', 'emailId'])
    .where('messageId', '=', messageId)
    .limit(1)
    .executeTakeFirst();
  if (queued) {
    return {
      accountId: Number(queued.accountId),
      personId: queued.personId === null ? null : Number(queued.personId),
      toAddress: queued.toAddress,
      subject: subjectOf(queued.sourceKind, Number(queued.sourceId), Number(queued.emailId)),
    };
  }
  const single = await db
    .selectFrom('mailDeliveries')
    .select(['accountId', 'toAddress'])
    .where('messageId', '=', messageId)
    .limit(1)
    .executeTakeFirst();
  if (!single) return null;
  // Mail that belongs to no account (password resets, invitations) has no list to put the address on.
  if (single.accountId === null) return 'no-account';
  return { accountId: Number(single.accountId), personId: null, toAddress: single.toAddress, subject: {} };
}

/**
 * Take one bounce or complaint: find the message by its Message-ID and, in that message's account, put the
 * address on the suppression list (hard bounce, complaint) and record a `bounced` / `complained` email event
 * for the person. A soft bounce is recorded with `soft: true`; the third from different messages within 30 days
 * suppresses the address as a hard bounce. The address suppressed
 * is the one the message went to, never the one the report names, so a report cannot suppress anyone else.
 * The same report twice changes nothing the second time; a Message-ID that is not ours is recorded nowhere.
 */
export async function recordFeedback(
  services: Pick<Services, 'db' | 'events'>,
  feedback: Feedback,
): Promise<FeedbackOutcome> {
  const messageId = normalizeMessageId(feedback.messageId);
  if (!messageId) return { status: 'unknown-message', messageId: null };
  const found = await findDelivery(services.db, messageId);
  if (found === null) return { status: 'unknown-message', messageId };
  if (found === 'no-account') return { status: 'no-account', messageId };
  const name = feedback.kind === 'complaint' ? 'complained' : 'bounced';
  return withAccount(services.db, found.accountId, async (db) => {
    // Two copies of one report arriving together wait for each other here, so only one is recorded.
    await sql`select pg_advisory_xact_lock(hashtext(${`feedback:${messageId}:${name}`}))`.execute(db);
    const address = found.toAddress.trim().toLowerCase();
    const personId = found.personId ?? (await personByEmail(db, found.accountId, address));
    const already = await services.events.feedbackRecorded(db, {
      accountId: found.accountId,
      personId,
      name,
      messageId,
      soft: feedback.kind === 'soft',
    });
    if (already) return { status: 'duplicate' as const, accountId: found.accountId };
    let suppressed = false;
    if (feedback.kind !== 'soft') {
      const reason = feedback.kind === 'hard' ? 'hard-bounce' : 'complaint';
      suppressed =
        (await suppress(db, found.accountId, [
          { email: address, reason, source: feedback.source, note: feedback.detail.slice(0, 500) || null },
        ])) > 0;
    }
    await db
      .insertInto('events')
      .values({
        accountId: found.accountId,
        personId,
        type: 'email',
        name,
        source: 'email',
        data: JSON.stringify({
          ...found.subject,
          messageId,
          detail: feedback.detail.slice(0, 1000),
          via: feedback.source,
          ...(feedback.kind === 'soft' ? { soft: true } : {}),
        }),
      })
      .execute();
    // Soft bounces are retried by the remote server; one that keeps coming back counts as a hard bounce.
    if (
      feedback.kind === 'soft' &&
      personId !== null &&
      (await services.events.softBouncedMessages(db, found.accountId, personId, softBounceDays)) >=
        softBounceLimit
    ) {
      suppressed =
        (await suppress(db, found.accountId, [
          {
            email: address,
            reason: 'hard-bounce',
            source: feedback.source,
            note: `${softBounceLimit} soft bounces within ${softBounceDays} days`,
          },
        ])) > 0;
    }
    return { status: 'recorded' as const, accountId: found.accountId, personId, suppressed };
  });
}

/** Soft bounces from this many different messages within `softBounceDays` suppress the address as a hard bounce. */
export const softBounceLimit = 3;
export const softBounceDays = 30;

async function personByEmail(db: Database, accountId: number, address: string): Promise<number | null> {
  const row = await db
    .selectFrom('people')
    .select('id')
    .where('accountId', '=', accountId)
    .where('emailKey', '=', address)
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}

/** Record several reports (one webhook call may carry many), each on its own. */
export async function recordAll(
  services: Pick<Services, 'db' | 'events'>,
  items: Feedback[],
): Promise<FeedbackOutcome[]> {
  const outcomes: FeedbackOutcome[] = [];
  for (const item of items) outcomes.push(await recordFeedback(services, item));
  return outcomes;
}
