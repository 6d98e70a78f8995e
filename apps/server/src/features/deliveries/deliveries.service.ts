import type { CategoryType } from '@herald/contracts';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { deliverJobKey, type SourceKind } from '../../jobs/job-types.ts';
import { broadcastTiming } from '../send-times/send-times.queries.ts';
import { deliverableTo } from '../suppressions/recipient-rule.ts';

// A source's kind and its deliver job's key are declared with the job's payload, in the toolkit (jobs/job-types.ts).
export { deliverJobKey, type SourceKind } from '../../jobs/job-types.ts';

export interface EnqueueInput {
  accountId: number;
  kind: SourceKind;
  sourceId: number;
  emailId: number;
  category: { id: number; type: CategoryType };
  /** A condition over `people p`: who the source is for, before exclusions. */
  audience: RawBuilder<SqlBool>;
  /** Not sent before this time (a schedule); now when absent. */
  notBefore?: Date;
  /** Broadcasts in recipients' time zones: the broadcast's sendAt, whose local time each person gets it at. */
  recipientSendAt?: Date | null;
}

/**
 * Queue one delivery per person of the audience who may receive mail of the category, in one INSERT … SELECT.
 * People already queued for this source (a repeated call, a crash and retry) are skipped by the unique key, so
 * calling it twice queues nobody twice. Everyone else the audience holds is counted as excluded.
 */
export async function enqueueDeliveries(
  db: Database,
  input: EnqueueInput,
): Promise<{ queued: number; excluded: number }> {
  const { accountId, kind, sourceId, emailId } = input;
  const total = await sql<{
    n: string;
  }>`select count(*) as n from people p where p.account_id = ${accountId} and ${input.audience}`.execute(db);
  const notBefore = input.notBefore ?? new Date();
  // Broadcast rows carry the recipient's zone, for their local send time and the account's quiet hours (send-times).
  const timing =
    kind === 'broadcast'
      ? await broadcastTiming(db, accountId, notBefore, input.recipientSendAt ?? null)
      : null;
  const inserted = await sql`
    insert into deliveries (account_id, source_kind, source_id, person_id, email_id, to_address, not_before, time_zone, quiet_due_at)
    select p.account_id, ${kind}, ${sourceId}, p.id, ${emailId}, p.email, ${timing?.notBefore ?? notBefore}, ${timing?.timeZone ?? sql`null`}, ${timing?.quietDueAt ?? sql`null`}
    from people p ${timing?.joins ?? sql``}
    where p.account_id = ${accountId} and ${input.audience} and ${deliverableTo(input.category.id, input.category.type)}
    on conflict (account_id, source_kind, source_id, person_id) where person_id is not null and flow_run_id is null do nothing
  `.execute(db);
  const queued = Number(inserted.numAffectedRows ?? 0);
  await enqueueJob(
    db,
    'deliver',
    { accountId, kind, sourceId },
    { jobKey: deliverJobKey(accountId, kind, sourceId), runAt: notBefore },
  );
  return { queued, excluded: Math.max(0, Number(total.rows[0]?.n ?? 0) - queued) };
}

/** How many people an audience holds, and how many of them may receive mail of the category now. */
export async function countAudience(
  db: Database,
  accountId: number,
  audience: RawBuilder<SqlBool>,
  category: { id: number; type: CategoryType },
) {
  const { rows } = await sql<{ total: string; deliverable: string; pending: string }>`
    select count(*) as total, count(*) filter (where ${deliverableTo(category.id, category.type)}) as deliverable,
      count(*) filter (where p.confirmation_pending_at is not null and p.archived_at is null) as pending
    from people p where p.account_id = ${accountId} and ${audience}
  `.execute(db);
  return {
    total: Number(rows[0]?.total ?? 0),
    deliverable: Number(rows[0]?.deliverable ?? 0),
    /** Waiting to confirm a double opt-in: in the audience, not sent to (marketing), counted apart. */
    pendingConfirmation: Number(rows[0]?.pending ?? 0),
  };
}

export interface SourceProgress {
  total: number;
  pending: number;
  sending: number;
  sent: number;
  failed: number;
  canceled: number;
  /** Held by a paused broadcast. */
  paused: number;
  /** Pending rows not due yet (a recipient's local time, quiet hours, a retry's backoff), and when the last is due. */
  waiting: number;
  waitingUntil: string | null;
  /** The mail server cannot be reached (connect, TLS or login), while it lasts: the latest cause and since when. */
  problem: { message: string; since: string; lastAt: string; failures: number } | null;
}

export async function sourceProgress(
  db: Database,
  accountId: number,
  kind: SourceKind,
  sourceId: number,
): Promise<SourceProgress> {
  const rows = await db
    .selectFrom('deliveries')
    .select([
      'status',
      (eb) => eb.fn.countAll<string>().as('n'),
      sql<string>`count(*) filter (where not_before > now())`.as('waiting'),
      sql<Date | null>`max(not_before)`.as('last'),
    ])
    .where('accountId', '=', accountId)
    .where('sourceKind', '=', kind)
    .where('sourceId', '=', sourceId)
    .groupBy('status')
    .execute();
  const of = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
  const progress = {
    pending: of('pending'),
    sending: of('sending'),
    sent: of('sent'),
    failed: of('failed'),
    canceled: of('canceled'),
    paused: of('paused'),
  };
  const pending = rows.find((r) => r.status === 'pending');
  const waiting = Number(pending?.waiting ?? 0);
  const waitingUntil = waiting > 0 && pending?.last ? new Date(pending.last).toISOString() : null;
  const problem = await db
    .selectFrom('sendProblems')
    .select(['message', 'since', 'lastAt', 'failures'])
    .where('accountId', '=', accountId)
    .where('sourceKind', '=', kind)
    .where('sourceId', '=', sourceId)
    .executeTakeFirst();
  return {
    total: Object.values(progress).reduce((a, b) => a + b, 0),
    ...progress,
    waiting,
    waitingUntil,
    problem: problem
      ? {
          message: problem.message,
          since: problem.since.toISOString(),
          lastAt: problem.lastAt.toISOString(),
          failures: problem.failures,
        }
      : null,
  };
}

/** Stop a source: rows not yet claimed (or held by a pause) are canceled; rows being sent finish. */
export async function cancelDeliveries(
  db: Database,
  accountId: number,
  kind: SourceKind,
  sourceId: number,
): Promise<number> {
  const result = await db
    .updateTable('deliveries')
    .set({ status: 'canceled', lastError: 'Canceled.' })
    .where('accountId', '=', accountId)
    .where('sourceKind', '=', kind)
    .where('sourceId', '=', sourceId)
    .where('status', 'in', ['pending', 'paused'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
