/**
 * The queue side of A/B tests: starting one (the test share queued per variant, the decision scheduled at the end
 * of the wait), the `ab-test-decide` job (winner chosen, the rest queued with its content), and canceling the
 * decision. Only this file of A/B tests knows the job queue.
 */
import {
  abTestMessages,
  abTestSplit,
  broadcastMessages,
  sendingMessages,
  type AbTest,
  type CategoryType,
} from '@herald/contracts';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import type { Services } from '../../services.ts';
import { countAudience, deliverJobKey, enqueueDeliveries } from '../deliveries/deliveries.service.ts';
import { rollUpEmailMetrics } from '../metrics/metrics.jobs.ts';
import { senderStanding } from '../senders/sending-rule.ts';
import { broadcastTiming, holdDeliveries } from '../send-times/send-times.queries.ts';
import { enqueueTestShare } from './ab-tests.queries.ts';
import {
  abTestOf,
  decideWinner,
  isRecipientTime,
  variantEmailIds,
  variantFigures,
} from './ab-tests.service.ts';
import { sendableAudience } from './broadcast-audience.ts';
import { activeEmail, failBroadcast, lockBroadcast, updateBroadcastRow } from './broadcasts.queries.ts';

/** One decision per broadcast; the migration's remover builds the same key. */
export const decideJobKey = (accountId: number, broadcastId: number) =>
  `ab-test-decide:${accountId}:${broadcastId}`;

/** Cancel a test's pending decision (in the caller's transaction). */
export async function removeDecision(db: Database, broadcastId: number): Promise<void> {
  await sql`select herald_remove_ab_test_job(${broadcastId}::bigint)`.execute(db);
}

/** A variant email that is gone or whose sender is no longer verified: the reason the test cannot go on. */
async function variantRefusal(
  db: Database,
  accountId: number,
  test: AbTest,
  indexes: number[],
): Promise<string | null> {
  for (const index of indexes) {
    const variant = test.variants[index]!;
    if (variant.emailId === null) continue;
    const email = await activeEmail(db, accountId, variant.emailId);
    if (!email) return abTestMessages.variantEmailGone(variant.name);
    if (!(await senderStanding(db, accountId, email.fromEmail)).allowed)
      return sendingMessages.notVerified(email.fromEmail);
  }
  return null;
}

export interface StartInput {
  accountId: number;
  broadcastId: number;
  test: AbTest;
  /** The broadcast's own email: what variants without an email of their own send. */
  emailId: number;
  audience: RawBuilder<SqlBool>;
  category: { id: number; type: CategoryType };
  /** The broadcast's `time`: a test refuses recipients' time zones. */
  time: unknown;
}

/**
 * Start a test (from the start job, the broadcast locked and A/B testing): queue the test share split between the
 * variants, send it, and decide at the end of the wait. Answers the figures the broadcast keeps, or why it fails.
 */
export async function startAbTest(
  db: Database,
  input: StartInput,
): Promise<{ queued: number; excluded: number; test: AbTest } | { failure: string }> {
  const { accountId, broadcastId, test } = input;
  if (isRecipientTime(input.time)) return { failure: abTestMessages.recipientTime };
  const refusal = await variantRefusal(
    db,
    accountId,
    test,
    test.variants.map((_, index) => index),
  );
  if (refusal) return { failure: refusal };
  const { total, deliverable } = await countAudience(db, accountId, input.audience, input.category);
  const split = abTestSplit(deliverable, test.testShare, test.variants.length);
  // One moment for everyone (sends in recipients' time zones refuse a test), moved by the account's quiet hours.
  const timing = await broadcastTiming(db, accountId, new Date(), null);
  const queuedByVariant = await enqueueTestShare(db, {
    accountId,
    broadcastId,
    audience: input.audience,
    category: input.category,
    sizes: split.variants,
    emailIds: variantEmailIds(test, input.emailId),
    timing,
  });
  const queued = [...queuedByVariant.values()].reduce((a, b) => a + b, 0);
  await enqueueJob(
    db,
    'deliver',
    { accountId, kind: 'broadcast', sourceId: broadcastId },
    { jobKey: deliverJobKey(accountId, 'broadcast', broadcastId) },
  );
  const decidesAt = new Date(Date.now() + test.waitHours * 3_600_000);
  await enqueueJob(
    db,
    'ab-test-decide',
    { accountId, broadcastId },
    { jobKey: decideJobKey(accountId, broadcastId), runAt: decidesAt },
  );
  return {
    queued,
    excluded: Math.max(0, total - deliverable),
    test: { ...test, decidesAt: decidesAt.toISOString() },
  };
}

/**
 * The decision at the end of the wait: the winner from the variants' opens or clicks (decideWinner), stored with
 * its explanation; the broadcast becomes 'ab-test-sending-winner' and everyone of the audience not yet queued gets
 * the winner's email and subject (rows of variant 0, whose content the pipeline reads from the decision). The
 * deliver job marks it sent when those are done. It does nothing for a broadcast no longer A/B testing
 * (canceled, or decided by an earlier run).
 */
export async function runAbTestDecide(
  services: Services,
  accountId: number,
  broadcastId: number,
): Promise<void> {
  // The variants' opens and clicks are the rollup's: the events queued until now count too.
  await rollUpEmailMetrics(services.db, { wait: true });
  await withAccount(services.db, accountId, async (db) => {
    await sql`select set_config('statement_timeout', '0', true)`.execute(db);
    const row = await lockBroadcast(db, accountId, broadcastId);
    if (!row || row.status !== 'ab-testing') return;
    const test = abTestOf(row.abTest);
    if (!test || row.emailId === null)
      return failBroadcast(
        db,
        accountId,
        broadcastId,
        test ? broadcastMessages.noEmail : abTestMessages.invalid,
      );
    const { winner, explanation } = decideWinner(
      test,
      await variantFigures(db, accountId, broadcastId, test),
    );
    const decided: AbTest = { ...test, winner, decidedAt: new Date().toISOString(), explanation };
    await updateBroadcastRow(db, accountId, broadcastId, {
      abTest: JSON.stringify(decided),
      status: 'ab-test-sending-winner',
    });

    const emailId = test.variants[winner]!.emailId ?? Number(row.emailId);
    const emailGone =
      test.variants[winner]!.emailId === null
        ? broadcastMessages.emailGone
        : abTestMessages.variantEmailGone(test.variants[winner]!.name);
    const sendable = await sendableAudience(services.events, db, accountId, row.audience, emailId, emailGone);
    if ('failure' in sendable) return failBroadcast(db, accountId, broadcastId, sendable.failure);
    const { condition, category } = sendable;
    const rest = await enqueueDeliveries(db, {
      accountId,
      kind: 'broadcast',
      sourceId: broadcastId,
      emailId,
      category,
      audience: condition,
    });
    // A test paused meanwhile is still decided; the rest waits, held, until it is resumed.
    if (row.pausedAt) await holdDeliveries(db, accountId, broadcastId);
    // The rest's count of "excluded" includes the people of the test share, who were not excluded.
    await updateBroadcastRow(db, accountId, broadcastId, {
      queued: row.queued + rest.queued,
      excluded: Math.max(0, rest.excluded - row.queued),
    });
  });
}
