import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Site tracking (issue 18). `site_visitors` ties each browser's anonymous id to the person it stands for (an
 * anonymous person until the visitor identifies, then the known person, after which the anonymous person's events
 * move over); it also answers "have visits been seen" without counting events. `site_forms` keeps one row per
 * form seen on the site, so the forms list never scans the events table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table site_visitors (
      account_id bigint not null references accounts (id) on delete cascade,
      anonymous_id text not null,
      person_id bigint not null,
      page_views integer not null default 0,
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      primary key (account_id, anonymous_id),
      foreign key (account_id, person_id) references people (account_id, id) on delete cascade
    )`.execute(db);
  await sql`create index site_visitors_person_idx on site_visitors (account_id, person_id)`.execute(db);
  await sql`
    create table site_forms (
      account_id bigint not null references accounts (id) on delete cascade,
      hash text not null,
      form_id text,
      url text not null,
      form jsonb not null,
      submissions integer not null default 0,
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      primary key (account_id, hash)
    )`.execute(db);
  await protectTenantTables(db, ['site_visitors', 'site_forms']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table site_forms`.execute(db);
  await sql`drop table site_visitors`.execute(db);
}
