/**
 * Keeping an import's job alive across crashes. A worker killed mid-import (SIGKILL, a crash, a lost machine)
 * leaves its `import-people` job locked in the job queue for hours; the sweeper gives the import a fresh job
 * once no live job holds it. "Holds" is a session advisory lock the running job keeps on a connection of its own:
 * PostgreSQL drops it the moment the dead worker's connection goes, and two jobs of one import (a fresh one beside
 * a live one that had not yet taken its lock) never both run it.
 */
import { sql } from 'kysely';
import type pg from 'pg';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { startPoller } from '../../jobs/poller.ts';

export const importJobKey = (accountId: number, importId: number) => `import:${accountId}:${importId}`;
const runLock = (importId: number) => `import-run:${importId}`;

/** Take the import's run lock; the function that gives it back, or null when a live job holds it. */
export async function lockImportRun(pool: pg.Pool, importId: number): Promise<(() => Promise<void>) | null> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      'select pg_try_advisory_lock(hashtextextended($1, 0)) as locked',
      [runLock(importId)],
    );
    if (!rows[0]!.locked) {
      client.release();
      return null;
    }
  } catch (error) {
    client.release(true);
    throw error;
  }
  return async () => {
    try {
      await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [runLock(importId)]);
      client.release();
    } catch {
      // The connection is gone, and the lock with it.
      client.release(true);
    }
  };
}

/** How often the sweeper looks for imports nobody is working on. */
const sweepMs = 5_000;

/**
 * Every `sweepMs`, imports not finished whose job is taken by a worker while their run lock is free (the worker
 * died) get a fresh job under the same key (the queue gives the key to the new job). An import without a job, or
 * whose job waits to run or to retry, is left alone.
 */
export function startImportsSweeper(
  db: Database,
  pool: pg.Pool,
  onError: (error: unknown) => void,
): () => Promise<void> {
  const sweep = async () => {
    const { rows } = await sql<{ accountId: number; id: number }>`
      select i.account_id as "accountId", i.id from imports i
      where i.status in ('queued', 'parsing', 'importing')
        and exists (select 1 from graphile_worker._private_jobs j where j.key = 'import:' || i.account_id || ':' || i.id and j.locked_at is not null)
      limit 100`.execute(db);
    for (const row of rows) {
      const accountId = Number(row.accountId);
      const importId = Number(row.id);
      const release = await lockImportRun(pool, importId);
      if (!release) continue;
      await release();
      await withAccount(db, accountId, (scoped) =>
        enqueueJob(
          scoped,
          'import-people',
          { accountId, importId },
          { jobKey: importJobKey(accountId, importId), maxAttempts: 5 },
        ),
      );
    }
  };
  return startPoller(sweep, sweepMs, onError);
}
