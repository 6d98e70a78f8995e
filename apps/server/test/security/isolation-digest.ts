import { sql } from 'kysely';
import type { Database } from '../../src/db/connection.ts';

/**
 * Bookkeeping left out of an account's digest, because it changes without anyone changing the account's data:
 * - sessions: last_seen_at moves on every signed-in request, and switching accounts moves a session's account;
 * - segment_dirty_accounts / segment_dirty_people: marks that ask the membership worker to look again (a queue);
 * - email_metric_queue: the queue the metrics worker drains into the rollups (a queue).
 * rate_limits and graphile-worker's jobs hold no account column and are not read at all.
 */
export const digestExclusions = [
  'sessions',
  'segment_dirty_accounts',
  'segment_dirty_people',
  'email_metric_queue',
];

let tablesCache: string[] | undefined;

/** Every table with an account_id column, except the bookkeeping above. */
async function tenantTables(db: Database): Promise<string[]> {
  tablesCache ??= (
    await sql<{ table: string }>`select c.table_name as "table" from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and c.column_name = 'account_id' and t.table_type = 'BASE TABLE' order by 1`.execute(
      db,
    )
  ).rows
    .map((r) => r.table)
    .filter((t) => !digestExclusions.includes(t));
  return tablesCache;
}

/**
 * One digest per table of everything the accounts hold: their rows in every tenant table, the accounts' own rows,
 * and the users who are their team members. One SQL statement, run outside row-level security.
 */
export async function digestAccounts(db: Database, accountIds: number[]): Promise<Record<string, string>> {
  const tables = await tenantTables(db);
  const ids = sql`${`{${accountIds.join(',')}}`}::bigint[]`;
  const parts = [
    sql`select 'accounts' as t, md5(coalesce(string_agg(x::text, '|' order by x.id), '')) as d from accounts x where x.id = any(${ids})`,
    sql`select 'users' as t, md5(coalesce(string_agg(x::text, '|' order by x.id), '')) as d from users x where x.id in (select user_id from team_members where account_id = any(${ids}))`,
    ...tables.map(
      (table) =>
        sql`select ${table} as t, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as d from ${sql.table(table)} x where x.account_id = any(${ids})`,
    ),
  ];
  const rows = (await sql<{ t: string; d: string }>`${sql.join(parts, sql` union all `)}`.execute(db)).rows;
  return Object.fromEntries(rows.map((r) => [r.t, r.d]));
}

/** The tables whose digest differs between two digests. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys({ ...before, ...after }).filter((t) => before[t] !== after[t]);
}
