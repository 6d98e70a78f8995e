import { sql } from 'kysely';
import type { Database } from './connection.ts';

/**
 * Run `work` in a transaction that sees only `accountId`'s rows: it assumes the role herald_app,
 * which row-level security policies restrict to the account in `herald.account_id`. A query in it
 * that forgets its `where account_id = …` still sees nothing of another account.
 */
export async function withAccount<T>(db: Database, accountId: number, work: (scoped: Database) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('herald.account_id', ${String(accountId)}, true), set_config('role', 'herald_app', true)`.execute(trx);
    return work(trx);
  });
}
