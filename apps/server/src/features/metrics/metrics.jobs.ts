import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { startPoller } from '../../jobs/poller.ts';
import { rollupLockKey } from '../../db/migrations/0038-rollup-without-row-keys.ts';
import { rollupOfBatch } from '../../db/migrations/0044-tracking-rollup-at-write.ts';

/**
 * How often the rollup looks for queued email events, and how many it takes in one transaction. Often, so that under
 * a stream of hits each pass is short: a pass every 2 s held a core for half a second while the same cores answered
 * the hits (docs/tracking-and-metrics.md, "Email metrics").
 */
export const rollupEveryMs = 500;
const batchSize = 50_000;
// Only one process rolls up at a time (they would otherwise wait on each other's rollup rows): it holds
// `rollupLockKey`, which deleting an account takes too (the per-recipient rollup has no key to accounts).

/** Memory for the batch's sorts and groupings (distinct first opens, hourly and per-link counts), instead of temp files. */
export const rollupWorkMem = '64MB';

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
      const { rows: locked } = await sql<{
        ok: boolean;
      }>`select pg_try_advisory_xact_lock(${rollupLockKey}) as ok`.execute(trx);
      if (!locked[0]?.ok) return 0;
    }
    await sql`select set_config('work_mem', ${rollupWorkMem}, true)`.execute(trx);
    const { rows } = await sql<{ n: string }>`
      -- Oldest first by the queue's own sequence, through its index (deleted rows at the front are skipped there).
      -- The batch is every visible row up to the limit-th one in sequence order: the same rows as a list of those
      -- sequence numbers (rows not yet committed are not visible to either), read in one range of the index instead
      -- of a descent for each number (docs/tracking-and-metrics.md, "How the rollup reads its batch", has the figures).
      with batch as (
        delete from email_metric_queue
        where seq <= (select max(seq) from (select seq from email_metric_queue order by seq limit ${limit}) first_rows)
        returning *
      ),
      ${sql.raw(rollupOfBatch)}
      select count(*) as n from batch
    `.execute(trx);
    return Number(rows[0]?.n ?? 0);
  });
}

/**
 * Roll up until the queue is empty (or `maxBatches` ran); returns how many events were taken. `wait` waits for a
 * rollup running elsewhere instead of leaving the work to it (tests and benches that read the figures next).
 */
export async function rollUpEmailMetrics(
  db: Database,
  { maxBatches = 20, wait = false } = {},
): Promise<number> {
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
