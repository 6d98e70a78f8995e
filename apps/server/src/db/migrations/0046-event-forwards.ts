import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * With EVENT_STORE=clickhouse, the `events` table is the spool and a forwarder moves its rows to ClickHouse
 * (db/event-store-clickhouse.ts). Each forward is recorded here before its insert into ClickHouse and deleted with
 * its events after it: a forward a crash interrupted is repeated with the same events and the same deduplication
 * token, so ClickHouse stores each event once. One row per account in a forward; empty on the PostgreSQL store.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table event_forwards (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      event_ids bigint[] not null,
      created_at timestamptz not null default now(),
      primary key (account_id, id)
    )`.execute(db);
  await protectTenantTables(db, ['event_forwards']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table event_forwards`.execute(db);
}
