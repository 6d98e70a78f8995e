/**
 * A/B tests of broadcasts: the rules (what a test may name, what it needs to start, how the winner is chosen and
 * explained), the per-variant figures, and the content a variant sends. The queue work is in ab-tests.jobs.ts.
 */
import {
  AbTest,
  abTestMessages,
  BroadcastTime,
  type AbTestMetric,
  type AbTestResults,
  type AbTestSettings,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest } from '../../http/errors.ts';
import type { ContentKey, SourceContent } from '../deliveries/source-content.ts';
import { assertMaySendFrom } from '../senders/sending-rule.ts';
import { variantDeliveries, variantEngagement } from './ab-tests.queries.ts';
import { activeEmail, type BroadcastRow } from './broadcasts.queries.ts';

/** The stored test of a broadcast, or null (none, or a value that no longer parses). */
export function abTestOf(stored: unknown): AbTest | null {
  if (stored === null || stored === undefined) return null;
  const parsed = AbTest.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

/** The column value for a test being set (JSON), cleared (null) or left as it is (undefined); never with a decision. */
export function abTestColumn(settings: AbTestSettings | null | undefined): string | null | undefined {
  if (settings === undefined) return undefined;
  if (settings === null) return null;
  const test: AbTest = { ...settings, decidesAt: null, winner: null, decidedAt: null, explanation: null };
  return JSON.stringify(test);
}

/** A duplicate keeps the test's settings but not its decision. */
export function copiedAbTest(stored: unknown): string | null {
  const test = abTestOf(stored);
  return test
    ? (abTestColumn({
        variants: test.variants,
        testShare: test.testShare,
        metric: test.metric,
        waitHours: test.waitHours,
      }) ?? null)
    : null;
}

/** The email each variant sends: its own, else the broadcast's. */
export const variantEmailIds = (test: Pick<AbTest, 'variants'>, broadcastEmailId: number) =>
  test.variants.map((variant) => variant.emailId ?? broadcastEmailId);

/** Emails a test names must exist and not be archived (PATCH and POST: a 400 naming the variant). */
export async function checkVariantEmails(
  db: Database,
  accountId: number,
  settings: AbTestSettings | null | undefined,
): Promise<void> {
  for (const variant of settings?.variants ?? []) {
    if (variant.emailId !== null && !(await activeEmail(db, accountId, variant.emailId)))
      throw badRequest(abTestMessages.variantEmailGone(variant.name));
  }
}

/** A send in each recipient's time zone spreads over a day: a test needs one moment for everyone. */
export const isRecipientTime = (time: unknown) => {
  const parsed = BroadcastTime.safeParse(time);
  return parsed.success && parsed.data.type === 'recipient';
};

/**
 * What a test needs to start, on top of a plain send's checks: one send time for everyone, each variant's email
 * still there and its sender verified (422 as for the broadcast's own email), and at least one recipient per variant.
 */
export async function checkAbTestSend(
  db: Database,
  accountId: number,
  test: AbTest,
  deliverable: number,
  time: unknown,
): Promise<void> {
  if (isRecipientTime(time)) throw badRequest(abTestMessages.recipientTime);
  for (const variant of test.variants) {
    if (variant.emailId === null) continue;
    const email = await activeEmail(db, accountId, variant.emailId);
    if (!email) throw badRequest(abTestMessages.variantEmailGone(variant.name));
    await assertMaySendFrom(db, accountId, email.fromEmail);
  }
  if (deliverable < test.variants.length)
    throw badRequest(abTestMessages.tooFewRecipients(test.variants.length, deliverable));
}

export interface VariantFigures {
  sent: number;
  opens: number;
  clicks: number;
}

const percent = (value: number, of: number) => `${of > 0 ? ((value / of) * 100).toFixed(1) : '0.0'}%`;
const listOf = (names: string[]) =>
  names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

/**
 * The winner of a test and why: the variant with the best rate of the metric (unique people who opened or
 * clicked over messages sent). No opens or clicks at all: the first variant. A tie: the first of the tied.
 */
export function decideWinner(
  test: { variants: { name: string }[]; metric: AbTestMetric },
  figures: VariantFigures[],
): { winner: number; explanation: string } {
  const { metric } = test;
  const valueOf = (index: number) => figures[index]?.[metric] ?? 0;
  const sentOf = (index: number) => figures[index]?.sent ?? 0;
  const indexes = test.variants.map((_, index) => index);
  if (indexes.every((index) => valueOf(index) === 0))
    return { winner: 0, explanation: abTestMessages.noData(metric, test.variants[0]!.name) };
  // Rates compared by cross-multiplying (value over sent, a variant nobody received counting as one sent), so
  // equal rates tie exactly.
  const compare = (a: number, b: number) =>
    valueOf(a) * Math.max(sentOf(b), 1) - valueOf(b) * Math.max(sentOf(a), 1);
  const ranked = [...indexes].sort((a, b) => compare(b, a) || a - b);
  const best = ranked[0]!;
  const tied = indexes.filter((index) => compare(index, best) === 0);
  const rate = (index: number) => percent(valueOf(index), sentOf(index));
  if (tied.length > 1) {
    const names = tied.map((index) => test.variants[index]!.name);
    return {
      winner: tied[0]!,
      explanation: abTestMessages.tie(metric, listOf(names), names[0]!, rate(best)),
    };
  }
  const runnerUp = ranked[1]!;
  return {
    winner: best,
    explanation: abTestMessages.won(
      metric,
      test.variants[best]!.name,
      rate(best),
      test.variants[runnerUp]!.name,
      rate(runnerUp),
    ),
  };
}

/** Each variant's figures now: rows queued and sent, people who opened and clicked. */
export async function variantFigures(db: Database, accountId: number, broadcastId: number, test: AbTest) {
  const [deliveries, engagement] = await Promise.all([
    variantDeliveries(db, accountId, broadcastId),
    variantEngagement(db, accountId, broadcastId),
  ]);
  return test.variants.map((variant, index) => ({
    variant: index + 1,
    name: variant.name,
    queued: deliveries.get(index + 1)?.queued ?? 0,
    sent: deliveries.get(index + 1)?.sent ?? 0,
    opens: engagement.get(index + 1)?.opens ?? 0,
    clicks: engagement.get(index + 1)?.clicks ?? 0,
  }));
}

/** The test's figures for the status answer; null for a broadcast without a test or one not started. */
export async function abTestResults(
  db: Database,
  accountId: number,
  row: BroadcastRow,
): Promise<AbTestResults | null> {
  const test = abTestOf(row.abTest);
  if (!test || row.startedAt === null) return null;
  return { variants: await variantFigures(db, accountId, Number(row.id), test) };
}

/**
 * The content a broadcast's delivery sends: a test variant (1..4) takes its subject, when it has one, over the
 * email's; the rest (0) take the winner's once decided. The row's email is already the variant's own.
 */
export async function broadcastVariantContent(
  db: Database,
  key: ContentKey,
  base: SourceContent | null,
): Promise<SourceContent | null> {
  if (!base) return null;
  const row = await db
    .selectFrom('broadcasts')
    .select('abTest')
    .where('accountId', '=', key.accountId)
    .where('id', '=', key.sourceId)
    .executeTakeFirst();
  const test = abTestOf(row?.abTest);
  if (!test) return base;
  const index = key.variant > 0 ? key.variant - 1 : test.winner;
  const subject = index === null ? null : test.variants[index]?.subject;
  return subject ? { ...base, subject } : base;
}
