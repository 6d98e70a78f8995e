import { sql, type Kysely } from 'kysely';

/**
 * Give herald_app access to tenant tables and turn on row-level security with the policy every
 * tenant table has: rows of the account in `herald.account_id` only. New migrations call this for
 * each tenant table they create.
 */
export async function protectTenantTables(db: Kysely<unknown>, tables: string[]): Promise<void> {
  for (const table of tables) {
    await sql`grant select, insert, update, delete on ${sql.table(table)} to herald_app`.execute(db);
    await sql`alter table ${sql.table(table)} enable row level security`.execute(db);
    await sql`create policy tenant on ${sql.table(table)} using (account_id = current_setting('herald.account_id', true)::bigint)`.execute(
      db,
    );
  }
}
