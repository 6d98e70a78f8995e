import { sql } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';
import type { SourceKind } from './deliveries.service.ts';

/** Rows of a paused broadcast are neither claimed nor waited for (send-times: pause and resume). */
const notPaused = (accountId: number, kind: SourceKind, sourceId: number) =>
  sql<boolean>`not exists (select 1 from broadcasts b where ${kind} = 'broadcast' and b.account_id = ${accountId} and b.id = ${sourceId} and b.paused_at is not null)`;

/** Seconds a claim holds its rows; a worker that dies lets them go after this. */
export const leaseSeconds = 30;

export interface ClaimedRow {
  id: number;
  personId: number | null;
  toAddress: string;
  emailId: number;
  variant: number;
  attempts: number;
}

/**
 * Take up to `limit` due rows of a source: pending ones, and ones whose lease ran out (their worker died). Rows
 * other workers hold are skipped, not waited for. The claim is committed before anything is sent.
 */
export async function claimBatch(
  db: Database,
  accountId: number,
  kind: SourceKind,
  sourceId: number,
  limit: number,
): Promise<ClaimedRow[]> {
  const { rows } = await sql<ClaimedRow>`
    -- The pick is an array (an init plan, run once, then primary-key lookups): as IN (subquery) the planner, misled by
    -- stale statistics (rows queued a batch at a time, as flows do), chose a nested loop over every row of the account
    -- that ran the locking subquery again for each of them.
    update deliveries d set status = 'sending', lease_until = now() + make_interval(secs => ${leaseSeconds}), attempts = d.attempts + 1
    where d.account_id = ${accountId} and d.id = any(array(
      select id from deliveries
      where account_id = ${accountId} and source_kind = ${kind} and source_id = ${sourceId} and not_before <= now()
        and (status = 'pending' or (status = 'sending' and lease_until < now()))
        and ${notPaused(accountId, kind, sourceId)}
        -- Quiet hours (send-times): a row whose recipient is in them now moves to their end and is skipped. An account
        -- without quiet hours is answered by the init plan alone, before any call per row (PostgreSQL does not inline
        -- herald_quiet_until here: its quiet-hours argument is a subquery its body reads four times; 124,000 calls in a
        -- 100,000-message broadcast).
        and ((select herald_quiet_hours(${accountId})) is null or time_zone is null or herald_quiet_until(now(), time_zone, (select herald_quiet_hours(${accountId}))) is null
          or herald_hold_quiet_delivery(account_id, id, herald_quiet_until(now(), time_zone, (select herald_quiet_hours(${accountId})))))
      -- In the claim index's order: a plain index scan that stops after the batch and marks the entries of rows
      -- sent meanwhile as dead, instead of a bitmap scan that reads every one of them again on each claim.
      order by not_before
      limit ${limit}
      for update skip locked
    ))
    returning d.id, d.person_id as "personId", d.to_address as "toAddress", d.email_id as "emailId", d.variant, d.attempts
  `.execute(db);
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    personId: r.personId === null ? null : Number(r.personId),
    emailId: Number(r.emailId),
  }));
}

/**
 * A batch's values for an update by id: one row whose `batch` is a JSON object keyed by id, read per row with
 * `v.batch -> (d.id::text)`. The update then finds its rows by `id = any(ids)` on the primary key alone. Joined
 * with the batch as a set of rows instead, statistics taken while few rows were unsent (estimating one) once made
 * the planner scan every unsent row of the account and compare it with each of the batch's 500 ids: 4.7 s a
 * batch in flow-100k.
 */
function valuesById(entries: [number, unknown[]][]) {
  return sql`(select ${JSON.stringify(Object.fromEntries(entries))}::jsonb as batch)`;
}

/**
 * Hold claimed rows longer: each row still `sending` under the claim that took it (its `attempts` unchanged) gets a
 * fresh lease. A live worker renews the rows it has in hand well before they run out (deliveries.jobs.ts), so only a
 * worker that died lets its rows go: a slow one (a busy machine, a long queue of batches for its sender threads)
 * would otherwise see its rows claimed and sent by another while it sends them too. Returns the rows lost to
 * another claim, whose batches must start no more messages (lease-fence.ts).
 */
export async function renewLeases(
  db: Database,
  accountId: number,
  held: Map<number, number>,
): Promise<{ lost: number[] }> {
  if (held.size === 0) return { lost: [] };
  const byId = valuesById([...held].map(([id, attempts]) => [id, [attempts]]));
  const ids = intArray([...held.keys()]);
  // Lost: claimed again since (another claim adds to `attempts`) or gone. A row this job has just recorded (sent,
  // or given back for a retry) keeps its attempts and is not lost. (The update runs whether or not the select reads
  // it, as every data-modifying WITH does.)
  const { rows } = await sql<{ id: string }>`
    with renewed as (
      update deliveries d set lease_until = now() + make_interval(secs => ${leaseSeconds})
      from ${byId} v
      where d.account_id = ${accountId} and d.id = any(${ids}::bigint[]) and d.status = 'sending'
        and d.attempts = (v.batch -> (d.id::text) ->> 0)::int
      returning d.id
    )
    select h.id::text from unnest(${ids}::bigint[]) as h(id)
    where not exists (
      select 1 from deliveries d, ${byId} v
      where d.account_id = ${accountId} and d.id = h.id and d.attempts = (v.batch -> (d.id::text) ->> 0)::int
    )
  `.execute(db);
  return { lost: rows.map((r) => Number(r.id)) };
}

export interface SentRow {
  id: number;
  messageId: string;
  /** The server's reply to the dot; null for a send learnt from the journal after a restart. */
  response: string | null;
}

/**
 * Mark rows sent and record a `sent` email event for each person, in one statement; a row already marked sent
 * is left alone, so its event is never written twice. The event names the row's own source, email and A/B
 * variant. Rows are found by primary key: the conditions avoid the partial claim index, which a planner with
 * stale statistics (a freshly queued send) would otherwise pick and read whole. Each row's values come from a
 * JSON object by id (valuesById), not from a join with the batch.
 */
export async function recordSent(db: Database, accountId: number, rows: SentRow[]): Promise<void> {
  if (!rows.length) return;
  const byId = valuesById(rows.map((r) => [r.id, [r.messageId, r.response]]));
  await sql`
    with done as (
      update deliveries d set status = 'sent', sent_at = now(), lease_until = null,
        message_id = v.batch -> (d.id::text) ->> 0, provider_response = v.batch -> (d.id::text) ->> 1, last_error = null
      from ${byId} v
      where d.account_id = ${accountId} and d.id = any(${intArray(rows.map((r) => r.id))}::bigint[]) and d.status <> 'sent'
      returning d.person_id, d.message_id, d.source_kind, d.source_id, d.email_id, d.variant
    )
    insert into events (account_id, person_id, type, name, source, data)
    select ${accountId}, person_id, 'email', 'sent', 'email',
      -- A flow's delivery names its flow and its send step (the source), as the metrics rollups read them.
      case when source_kind = 'flow'
        then jsonb_build_object('flowId', (select s.flow_id from flow_steps s where s.account_id = ${accountId} and s.id = source_id), 'stepId', source_id::text)
        else jsonb_build_object(case source_kind when 'broadcast' then 'broadcastId' else 'sourceId' end, source_id) end
        || jsonb_build_object('emailId', email_id, 'messageId', message_id)
        || case when variant > 0 then jsonb_build_object('variant', variant) else '{}'::jsonb end
    from done where person_id is not null
  `.execute(db);
}

/** Give rows back for another try after `delaySeconds`, or fail them for good. */
export async function recordFailed(
  db: Database,
  accountId: number,
  rows: { id: number; error: string; retryInSeconds: number | null }[],
): Promise<void> {
  if (!rows.length) return;
  const byId = valuesById(rows.map((r) => [r.id, [r.error, r.retryInSeconds]]));
  await sql`
    update deliveries d set
      status = case when v.batch -> (d.id::text) ->> 1 is null then 'failed' else 'pending' end,
      not_before = coalesce(now() + make_interval(secs => (v.batch -> (d.id::text) ->> 1)::int), d.not_before),
      quiet_due_at = null, lease_until = null, last_error = v.batch -> (d.id::text) ->> 0
    from ${byId} v
    where d.account_id = ${accountId} and d.id = any(${intArray(rows.map((r) => r.id))}::bigint[]) and d.status not in ('sent', 'failed', 'canceled')
  `.execute(db);
}

/** Cancel rows whose person may no longer receive the mail (unsubscribed, suppressed or archived since queued). */
export async function recordSkipped(
  db: Database,
  accountId: number,
  ids: number[],
  reason: string,
): Promise<void> {
  if (!ids.length) return;
  await db
    .updateTable('deliveries')
    .set({ status: 'canceled', leaseUntil: null, lastError: reason })
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .where('status', 'not in', ['sent', 'failed', 'canceled'])
    .execute();
}

/** When the source next has work: a pending row's time, or a lease that has yet to run out; null when none is left. */
export async function nextWork(
  db: Database,
  accountId: number,
  kind: SourceKind,
  sourceId: number,
): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | null }>`
    select least(min(not_before) filter (where status = 'pending'), min(lease_until) filter (where status = 'sending')) as at
    from deliveries where account_id = ${accountId} and source_kind = ${kind} and source_id = ${sourceId} and status in ('pending', 'sending')
      and (status = 'sending' or ${notPaused(accountId, kind, sourceId)})
  `.execute(db);
  return rows[0]?.at ?? null;
}

/**
 * A broadcast whose deliveries are all done is sent (failed when none could be sent). A paused one is not: rows
 * that became pending while it was paused (a retry, an A/B winner) are held with the others until it is resumed.
 */
export async function finishBroadcast(db: Database, accountId: number, broadcastId: number): Promise<void> {
  await sql`
    with held as (
      update deliveries set status = 'paused'
      where account_id = ${accountId} and source_kind = 'broadcast' and source_id = ${broadcastId} and status = 'pending'
        and not ${notPaused(accountId, 'broadcast', broadcastId)}
    )
    update broadcasts b set
      status = case when s.sent = 0 and s.failed > 0 then 'failed' else 'sent' end,
      failure = case when s.sent = 0 and s.failed > 0 then s.last_error else b.failure end,
      finished_at = now(), updated_at = now()
    from (
      select count(*) filter (where status = 'sent') as sent, count(*) filter (where status = 'failed') as failed,
        max(last_error) filter (where status = 'failed') as last_error
      from deliveries where account_id = ${accountId} and source_kind = 'broadcast' and source_id = ${broadcastId}
    ) s
    where b.account_id = ${accountId} and b.id = ${broadcastId} and b.status in ('sending', 'ab-test-sending-winner') and b.paused_at is null
      and not exists (select 1 from deliveries where account_id = ${accountId} and source_kind = 'broadcast' and source_id = ${broadcastId} and status in ('pending', 'sending', 'paused'))
  `.execute(db);
}

/** A source that cannot send at all (its sender is not verified): every unsent row fails with the reason. */
export async function failSource(
  db: Database,
  accountId: number,
  kind: SourceKind,
  sourceId: number,
  reason: string,
): Promise<void> {
  await db
    .updateTable('deliveries')
    .set({ status: 'failed', leaseUntil: null, lastError: reason })
    .where('accountId', '=', accountId)
    .where('sourceKind', '=', kind)
    .where('sourceId', '=', sourceId)
    .where('status', 'in', ['pending', 'sending'])
    .execute();
}

/**
 * A failed attempt to open the mail server's connection for this source: the problem row is written or brought up
 * to date (docs/broadcasts-and-sending.md, "Sending through a real mail server"). Answers how many attempts in a row failed.
 */
export async function noteSendProblem(
  db: Database,
  accountId: number,
  kind: SourceKind,
  sourceId: number,
  message: string,
): Promise<{ failures: number; counted: boolean }> {
  // The batches of one attempt fail together (a send claims several at once): failures within 5 s of the last
  // counted one are the same attempt. Retries come 30 s or more apart.
  const { rows } = await sql<{ failures: number; counted: boolean }>`
    insert into send_problems as p (account_id, source_kind, source_id, message)
    values (${accountId}, ${kind}, ${sourceId}, ${message.slice(0, 1000)})
    on conflict (account_id, source_kind, source_id)
    do update set message = excluded.message,
      failures = p.failures + (case when p.last_at < now() - interval '5 seconds' then 1 else 0 end),
      last_at = case when p.last_at < now() - interval '5 seconds' then now() else p.last_at end
    returning failures, last_at = now() as counted`.execute(db);
  return rows[0]!;
}

/** The server took a message again: the source's problem is over. Answers whether the account has any left. */
export async function clearSendProblem(
  db: Database,
  accountId: number,
  kind: SourceKind,
  sourceId: number,
): Promise<{ cleared: boolean; othersLeft: boolean }> {
  const cleared = await db
    .deleteFrom('sendProblems')
    .where('accountId', '=', accountId)
    .where('sourceKind', '=', kind)
    .where('sourceId', '=', sourceId)
    .executeTakeFirst();
  if (!Number(cleared.numDeletedRows)) return { cleared: false, othersLeft: true };
  const left = await db
    .selectFrom('sendProblems')
    .select('sourceId')
    .where('accountId', '=', accountId)
    .limit(1)
    .executeTakeFirst();
  return { cleared: true, othersLeft: left !== undefined };
}
