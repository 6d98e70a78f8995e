import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * The Segment-compatible Tracking API (issue 54; docs/people.md, "Segment-compatible Tracking API"):
 * - `accounts.tracking_unknown_traits`: what an identify call's traits that name no field become ('drop', the
 *   default, or 'field': a new custom field of the value's type);
 * - `tracking_message_ids`: the messageIds received, so that a retried message stores nothing new (kept 7 days:
 *   each call removes its account's expired ones, through the index on `received_at`);
 * - `tracking_identities`: each anonymousId seen with the person it stands for (several per person: one a device),
 *   so that anonymous calls after an identify land on the known person.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts add column tracking_unknown_traits text not null default 'drop'
      check (tracking_unknown_traits in ('drop', 'field'));
    create table tracking_message_ids (
      account_id bigint not null references accounts (id) on delete cascade,
      message_id text not null,
      received_at timestamptz not null default now(),
      primary key (account_id, message_id)
    );
    create index tracking_message_ids_received on tracking_message_ids (account_id, received_at);
    create table tracking_identities (
      account_id bigint not null,
      anonymous_id text not null,
      person_id bigint not null,
      primary key (account_id, anonymous_id),
      foreign key (account_id, person_id) references people (account_id, id) on delete cascade
    );
    create index tracking_identities_person on tracking_identities (account_id, person_id);
  `.execute(db);
  await protectTenantTables(db, ['tracking_message_ids', 'tracking_identities']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table tracking_identities;
    drop table tracking_message_ids;
    alter table accounts drop column tracking_unknown_traits;
  `.execute(db);
}
