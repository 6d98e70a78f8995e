import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * A send that cannot reach its mail server (connect, TLS or login fails) says so (docs/broadcasts-and-sending.md, "Sending through
 * a real mail server"): one row per source while the problem lasts, with the latest cause, when it began and how
 * many attempts in a row failed. The broadcast's status answer shows it, the third failure in a row raises an account
 * alert, and the first message the server takes again removes the row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table send_problems (
      account_id bigint not null references accounts (id) on delete cascade,
      source_kind text not null,
      source_id bigint not null,
      message text not null,
      since timestamptz not null default now(),
      last_at timestamptz not null default now(),
      failures integer not null default 1,
      primary key (account_id, source_kind, source_id)
    )`.execute(db);
  await protectTenantTables(db, ['send_problems']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table send_problems`.execute(db);
}
