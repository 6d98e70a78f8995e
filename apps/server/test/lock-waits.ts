import type pg from 'pg';
import { until } from './until.ts';

/**
 * Waits until a statement of this database whose text contains `statement` is waiting for a lock (a row, a
 * transaction or an advisory lock, pg_stat_activity): the positive sign that it got as far as the lock a test holds.
 */
export async function waitingOnALock(
  pool: Pick<pg.Pool, 'query'>,
  statement: string,
  timeout = 10_000,
): Promise<void> {
  await until(
    async () =>
      (
        await pool.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock' and query ilike '%' || $1 || '%'`,
          [statement],
        )
      ).rows[0]!.n > 0,
    { timeout, message: `a statement with '${statement}' waiting for a lock` },
  );
}
