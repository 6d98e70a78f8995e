import { sql } from 'kysely';
import type pg from 'pg';
import type { Database } from './connection.ts';

// A lock shared by features: segments' refreshes take it shared, an import (features/imports) and a field's
// deletion (features/fields) hold it; it sits in the toolkit so that those lower features need not import segments.

/**
 * The name of the advisory lock (keyed by account) that holds an account's refreshes of marked changes:
 * an import takes it while it merges, so its batches are followed by one refresh afterwards instead
 * of rebuilds competing with every batch. Marks made meanwhile stay until it is released.
 */
export const refreshHoldLock = 'segment-refresh-hold';

/** Hold the account's refreshes (waiting for running ones); returns the release. The lock lives on its own connection, so a crash gives it back. */
export async function holdSegmentRefreshes(pool: pg.Pool, accountId: number): Promise<() => Promise<void>> {
  const client = await pool.connect();
  try {
    await client.query('set statement_timeout = 0');
    await client.query('select pg_advisory_lock(hashtextextended($2, $1::bigint))', [
      accountId,
      refreshHoldLock,
    ]);
  } catch (error) {
    client.release(true);
    throw error;
  }
  return async () => {
    try {
      await client.query('select pg_advisory_unlock(hashtextextended($2, $1::bigint))', [
        accountId,
        refreshHoldLock,
      ]);
      await client.query('reset statement_timeout');
      client.release();
    } catch {
      // Closing the connection gives the lock back.
      client.release(true);
    }
  };
}

/**
 * Hold the account's refreshes until the caller's transaction ends, once the running ones are done; false when
 * they are not done within `waitMs` (a large rebuild, or an import, which holds them while it merges). A change
 * that makes conditions fail to compile (deleting a field a segment reads) takes it: a refresh that loaded the
 * field before the change could otherwise judge people by conditions whose values the change has just removed,
 * and empty the segment that is meant to keep its members until it is mended.
 */
export async function holdSegmentRefreshesUntilCommit(
  db: Database,
  accountId: number,
  waitMs: number,
): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (;;) {
    const { rows } = await sql<{
      held: boolean;
    }>`select pg_try_advisory_xact_lock(hashtextextended(${refreshHoldLock}, ${accountId}::bigint)) as held`.execute(
      db,
    );
    if (rows[0]!.held) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * True when no import holds the account's refreshes. The check takes the lock shared until the
 * transaction ends: refreshes do not hold each other up, and an import waits for the running ones.
 */
export async function refreshesFree(db: Database, accountId: number): Promise<boolean> {
  const { rows } = await sql<{
    free: boolean;
  }>`select pg_try_advisory_xact_lock_shared(hashtextextended(${refreshHoldLock}, ${accountId}::bigint)) as free`.execute(
    db,
  );
  return rows[0]!.free;
}
