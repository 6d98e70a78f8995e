import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { startPoller } from '../../jobs/poller.ts';
import { rollupLockKey } from '../../db/migrations/0038-rollup-without-row-keys.ts';

/**
 * How often the rollup looks for queued email events, and how many it takes in one transaction. Often, so that under
 * a stream of hits each pass is short: a pass every 2 s held a core for half a second while the same cores answered
 * the hits (docs/decisions.md, "Email metrics").
 */
export const rollupEveryMs = 500;
const batchSize = 50_000;
// Only one process rolls up at a time (they would otherwise wait on each other's rollup rows): it holds
// `rollupLockKey`, which deleting an account takes too (the per-recipient rollup has no key to accounts).

/** Memory for the batch's sorts and groupings (distinct first opens, hourly and per-link counts), instead of temp files. */
const rollupWorkMem = '64MB';

/**
 * Move one batch of queued email events into the rollups, in one statement: the batch is deleted from the queue,
 * first human opens and clicks are recorded (each recipient once per sent email), and the counts are added to the
 * hourly and per-link rollups, and to the account-wide hourly and per-link ones. A person's own counts are not
 * rolled up: they are counted from the person's events when asked for (`personEmailCounts`, migration 0042).
 * Returns how many events it took; 0 when another process holds the lock (unless `wait`, which waits for it).
 */
export async function rollUpBatch(db: Database, limit = batchSize, wait = false): Promise<number> {
  return db.transaction().execute(async (trx) => {
    if (wait) await sql`select pg_advisory_xact_lock(${rollupLockKey})`.execute(trx);
    else {
      const { rows: locked } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${rollupLockKey}) as ok`.execute(trx);
      if (!locked[0]?.ok) return 0;
    }
    await sql`select set_config('work_mem', ${rollupWorkMem}, true)`.execute(trx);
    const { rows } = await sql<{ n: string }>`
      -- Oldest first by the queue's own sequence, through its index (deleted rows at the front are skipped there).
      -- The batch is every visible row up to the limit-th one in sequence order: the same rows as a list of those
      -- sequence numbers (rows not yet committed are not visible to either), read in one range of the index instead
      -- of a descent for each number (docs/decisions.md, "How the rollup reads its batch", has the figures).
      with batch as (
        delete from email_metric_queue
        where seq <= (select max(seq) from (select seq from email_metric_queue order by seq limit ${limit}) first_rows)
        returning *
      ),
      -- Events of an account deleted since they were queued go with the batch and count nowhere (the rollups'
      -- foreign keys would refuse them, and the whole batch with them, at every try).
      live as (
        select b.* from batch b where exists (select 1 from accounts a where a.id = b.account_id)
      ),
      -- Sorted by person first: the other keys are mostly the same within a batch (one broadcast's opens), and a
      -- sort whose first keys tie compares every key of each pair (for 50,000 hits, about a fifth of the time).
      firsts as (
        insert into email_metric_firsts (account_id, source_kind, source_id, email_id, step_id, person_id, name, first_at, variant)
        select distinct on (person_id, account_id, source_id, email_id, source_kind, step_id, name)
          account_id, source_kind, source_id, email_id, step_id, person_id, name, at, variant
        from live where name in ('opened', 'clicked') and not machine and person_id is not null
        order by person_id, account_id, source_id, email_id, source_kind, step_id, name, at
        on conflict do nothing
        returning account_id, date_trunc('hour', first_at, 'UTC') as hour, source_kind, source_id, email_id, step_id, variant, name
      ),
      counts as (
        select account_id, date_trunc('hour', at, 'UTC') as hour, source_kind, source_id, email_id, step_id, variant,
          count(*) filter (where name = 'sent') as sent, count(*) filter (where name = 'opened') as opened,
          count(*) filter (where name = 'clicked') as clicked, 0::bigint as unique_opens, 0::bigint as unique_clicks,
          count(*) filter (where name = 'unsubscribed') as unsubscribed, count(*) filter (where name = 'bounced') as bounced,
          count(*) filter (where name = 'complained') as complained
        from live group by 1, 2, 3, 4, 5, 6, 7
        union all
        select account_id, hour, source_kind, source_id, email_id, step_id, variant, 0, 0, 0,
          count(*) filter (where name = 'opened'), count(*) filter (where name = 'clicked'), 0, 0, 0
        from firsts group by 1, 2, 3, 4, 5, 6, 7
      ),
      hourly as (
        insert into email_metrics_hourly as h (account_id, hour, source_kind, source_id, email_id, step_id, variant,
          sent, opened, clicked, unique_opens, unique_clicks, unsubscribed, bounced, complained)
        select account_id, hour, source_kind, source_id, email_id, step_id, variant, sum(sent), sum(opened), sum(clicked),
          sum(unique_opens), sum(unique_clicks), sum(unsubscribed), sum(bounced), sum(complained)
        from counts group by 1, 2, 3, 4, 5, 6, 7
        on conflict (account_id, hour, source_kind, source_id, email_id, step_id, variant) do update set
          sent = h.sent + excluded.sent, opened = h.opened + excluded.opened, clicked = h.clicked + excluded.clicked,
          unique_opens = h.unique_opens + excluded.unique_opens, unique_clicks = h.unique_clicks + excluded.unique_clicks,
          unsubscribed = h.unsubscribed + excluded.unsubscribed, bounced = h.bounced + excluded.bounced, complained = h.complained + excluded.complained
      ),
      account_hourly as (
        insert into email_metrics_account_hourly as a (account_id, hour, sent, opened, clicked, unique_opens, unique_clicks,
          unsubscribed, bounced, complained)
        select account_id, hour, sum(sent), sum(opened), sum(clicked), sum(unique_opens), sum(unique_clicks),
          sum(unsubscribed), sum(bounced), sum(complained)
        from counts group by 1, 2
        on conflict (account_id, hour) do update set
          sent = a.sent + excluded.sent, opened = a.opened + excluded.opened, clicked = a.clicked + excluded.clicked,
          unique_opens = a.unique_opens + excluded.unique_opens, unique_clicks = a.unique_clicks + excluded.unique_clicks,
          unsubscribed = a.unsubscribed + excluded.unsubscribed, bounced = a.bounced + excluded.bounced, complained = a.complained + excluded.complained
      ),
      account_links as (
        insert into email_metrics_account_links as l (account_id, hour, link, clicks)
        select account_id, date_trunc('hour', at, 'UTC'), link, count(*)
        from live where name = 'clicked' and link is not null group by 1, 2, 3
        on conflict (account_id, hour, link) do update set clicks = l.clicks + excluded.clicks
      ),
      account_links_daily as (
        insert into email_metrics_account_links_daily as l (account_id, day, link, clicks)
        select account_id, (at at time zone 'UTC')::date, link, count(*)
        from live where name = 'clicked' and link is not null group by 1, 2, 3
        on conflict (account_id, day, link) do update set clicks = l.clicks + excluded.clicks
      ),
      links as (
        insert into email_metrics_links as l (account_id, hour, source_kind, source_id, email_id, step_id, link, clicks)
        select account_id, date_trunc('hour', at, 'UTC'), source_kind, source_id, email_id, step_id, link, count(*)
        from live where name = 'clicked' and link is not null group by 1, 2, 3, 4, 5, 6, 7
        on conflict (account_id, hour, source_kind, source_id, email_id, step_id, link) do update set clicks = l.clicks + excluded.clicks
      )
      select count(*) as n from batch
    `.execute(trx);
    return Number(rows[0]?.n ?? 0);
  });
}

/**
 * Roll up until the queue is empty (or `maxBatches` ran); returns how many events were taken. `wait` waits for a
 * rollup running elsewhere instead of leaving the work to it (tests and benches that read the figures next).
 */
export async function rollUpEmailMetrics(db: Database, { maxBatches = 20, wait = false } = {}): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const n = await rollUpBatch(db, batchSize, wait);
    total += n;
    if (n < batchSize) break;
  }
  return total;
}

/** Start the rollup poller in a worker process; returns its stop function. */
export function startMetricsRollup(db: Database, onError: (error: unknown) => void): () => Promise<void> {
  return startPoller(() => rollUpEmailMetrics(db), rollupEveryMs, onError);
}
