import { sql } from 'kysely';
import type pg from 'pg';
import { beginForAccount, pendingAccount, type Database } from './connection.ts';

/**
 * Run `work` in a transaction that sees only `accountId`'s rows: it assumes the role herald_app,
 * which row-level security policies restrict to the account in `herald.account_id`. A query in it
 * that forgets its `where account_id = …` still sees nothing of another account.
 */
export async function withAccount<T>(
  db: Database,
  accountId: number,
  work: (scoped: Database) => Promise<T>,
): Promise<T> {
  // The transaction's begin sets the account and the role in its own round trip (db/connection.ts, pendingAccount).
  return pendingAccount.run({ accountId, taken: false }, () =>
    db.transaction().execute(async (trx) => {
      if (!pendingAccount.getStore()?.taken)
        await sql`select set_config('herald.account_id', ${String(accountId)}, true), set_config('role', 'herald_app', true)`.execute(
          trx,
        );
      return work(trx);
    }),
  );
}

/**
 * The account of a lookup of one person by id (`where p.account_id = ${accountForIdLookup(id)} and p.id = r.id`, one
 * lookup a row in a lateral join), as a value the planner does not see: an init plan, estimated as an average
 * account. With the account's own value, statistics taken before the account had people (a fresh import, no
 * autovacuum since) estimate it at one row; the primary key and `people_created_idx` then cost the same, and the
 * planner took the latter with a filter on id, reading all the account's people for each person (broadcast-100k's
 * batches hit the statement timeout). As an average account with more than one person, the primary key, which
 * matches one row by both columns, is the cheaper plan whatever the statistics know of the account.
 */
export function accountForIdLookup(accountId: number) {
  return sql<number>`(select ${accountId}::bigint)`;
}

/**
 * Run `work` on a pooled client as herald_app, in a transaction that sees only the account's rows
 * (the staging COPY, which PostgreSQL refuses under row-level security, opens its own owner
 * connection in `openChunk`). Commits do not wait for the WAL flush: a job that loses its last
 * commits in a crash redoes them (every step is resumable), and that wait is most of a commit.
 */
export async function withAccountClient<T>(
  pool: pg.Pool,
  accountId: number,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(`${beginForAccount(accountId)}, set_config('synchronous_commit', 'off', true)`);
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
