import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * The audience: people (first-class columns, custom fields in JSONB, tags as an array), custom field
 * definitions, managed tags, events, and folders. Indexes on people are kept few (docs/people.md):
 * unique email, one trigram index for search, one GIN index for tags.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create extension if not exists pg_trgm;
    create extension if not exists btree_gin;

    create table people (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      email text,
      first_name text,
      last_name text,
      phone text,
      company text,
      website text,
      external_id text,
      anonymous_id text,
      fields jsonb not null default '{}',
      tags text[] not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      archived_at timestamptz,
      unsubscribed_at timestamptz,
      unsubscribe_reason text,
      search text generated always as (
        lower(coalesce(email, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, ''))
      ) stored,
      primary key (account_id, id)
    );
    create unique index people_email_key on people (account_id, lower(email)) where email is not null;
    create unique index people_anonymous_key on people (account_id, anonymous_id) where anonymous_id is not null;
    create index people_search_idx on people using gin (account_id, search gin_trgm_ops);
    create index people_tags_idx on people using gin (account_id, tags);

    create table person_fields (
      account_id bigint not null references accounts (id) on delete cascade,
      name text not null,
      type text not null default 'string',
      title text not null,
      icon text,
      tooltip text,
      format text,
      read_only boolean not null default false,
      can_map_from boolean not null default true,
      is_array boolean not null default false,
      created_by text not null default 'user',
      enum_values jsonb,
      enum_names jsonb,
      allow_new_enum_values boolean not null default false,
      created_at timestamptz not null default now(),
      primary key (account_id, name)
    );

    create table tags (
      account_id bigint not null references accounts (id) on delete cascade,
      tag text not null,
      description text,
      created_at timestamptz not null default now(),
      primary key (account_id, tag)
    );

    -- Events grow to tens of millions a account: one index serves a person's timeline, one the feed.
    create table events (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      person_id bigint,
      type text not null,
      name text,
      url text,
      data jsonb not null default '{}',
      source text not null default 'api',
      created_at timestamptz not null default now(),
      primary key (account_id, id)
    );
    create index events_person_idx on events (account_id, person_id, created_at desc, id desc);
    create index events_feed_idx on events (account_id, created_at desc, id desc);

    create table folders (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      name text not null default 'Unnamed folder',
      folder_type text not null,
      parent_id bigint,
      is_root boolean not null default false,
      auto_folder_type text,
      children jsonb not null default '[]',
      expanded boolean not null default true,
      color text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id, id)
    );
    create unique index folders_root_key on folders (account_id, folder_type) where is_root;
    create unique index folders_auto_key on folders (account_id, folder_type, auto_folder_type) where auto_folder_type is not null;

    -- Bulk actions (tag, export, archive, restore, delete) run as jobs and report here.
    create table bulk_actions (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      kind text not null,
      params jsonb not null,
      status text not null default 'queued',
      total integer,
      done integer not null default 0,
      result jsonb,
      created_by bigint,
      created_at timestamptz not null default now(),
      finished_at timestamptz,
      primary key (account_id, id)
    );

  `.execute(db);
  await protectTenantTables(db, ['people', 'person_fields', 'tags', 'events', 'folders', 'bulk_actions']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table bulk_actions, folders, events, tags, person_fields, people`.execute(db);
}
