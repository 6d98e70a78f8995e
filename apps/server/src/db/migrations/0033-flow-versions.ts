import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Versions of a flow (issue 20). Switching a flow on saves what it does — its steps (with settings and canvas
 * places), links and re-entry rule — as the next numbered version when that differs from the last one. A version
 * is kept while its flow exists; restoring one puts its steps and links back.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table flow_versions (
      account_id bigint not null,
      flow_id bigint not null,
      number integer not null check (number > 0),
      snapshot jsonb not null,
      -- The team member who switched the flow on; null once they left the team.
      created_by bigint,
      created_at timestamptz not null default now(),
      primary key (account_id, flow_id, number),
      foreign key (account_id, flow_id) references flows (account_id, id) on delete cascade
    );
  `.execute(db);
  await protectTenantTables(db, ['flow_versions']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table flow_versions`.execute(db);
}
