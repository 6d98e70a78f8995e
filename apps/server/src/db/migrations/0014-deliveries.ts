import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * The sending pipeline and broadcasts. `deliveries` is the queue (docs/broadcasts-and-sending.md, "The sending pipeline"): one row per
 * (source, person), created set-wise from an audience, claimed in batches under a lease, sent once. A row's
 * status moves pending → sending (claimed, lease running) → sent | failed | canceled; a lease that runs out
 * returns it to the claimable set, and a row marked sent is never claimed again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table broadcasts (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity (start with 100),
      name text not null default 'My Broadcast',
      status text not null default 'draft'
        check (status in ('draft', 'scheduled', 'sending', 'sent', 'canceled', 'failed', 'ab-testing', 'ab-test-sending-winner')),
      email_id bigint,
      send_at timestamptz,
      -- How the send time is read (account time zone or each recipient's); null: as soon as sent.
      time jsonb,
      -- Who gets it: everyone, segments or tags, minus excluded segments and tags.
      audience jsonb not null default '{"type": "all"}',
      integration_id text,
      archived boolean not null default false,
      queued integer not null default 0,
      excluded integer not null default 0,
      failure text,
      started_at timestamptz,
      finished_at timestamptz,
      created_by bigint,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id, id)
    );
    create index broadcasts_list_idx on broadcasts (account_id, archived, updated_at desc);

    create table deliveries (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      source_kind text not null check (source_kind in ('broadcast', 'flow', 'transactional', 'test')),
      source_id bigint not null,
      person_id bigint,
      email_id bigint not null,
      to_address text not null,
      variant smallint not null default 0,
      status text not null default 'pending' check (status in ('pending', 'sending', 'sent', 'failed', 'canceled')),
      attempts integer not null default 0,
      not_before timestamptz not null default now(),
      lease_until timestamptz,
      message_id text,
      provider_response text,
      last_error text,
      sent_at timestamptz,
      created_at timestamptz not null default now(),
      primary key (account_id, id)
    );
    create unique index deliveries_source_person_key on deliveries (account_id, source_kind, source_id, person_id) where person_id is not null;
    create index deliveries_claim_idx on deliveries (account_id, source_kind, source_id, not_before) where status in ('pending', 'sending');
    create index deliveries_message_idx on deliveries (message_id) where message_id is not null;
  `.execute(db);
  await protectTenantTables(db, ['broadcasts', 'deliveries']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table deliveries;
    drop table broadcasts;
  `.execute(db);
}
