import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * CSV imports: the import with its progress and counts, a staging table the parser fills in
 * committed chunks (so a restarted job resumes), and the rows that failed with their reasons.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table imports (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      name text not null,
      file_key text not null,
      num_people integer not null default 0,
      field_mapping jsonb not null,
      tags text[] not null default '{}',
      existing_people_strategy text not null default 'update',
      status text not null default 'queued',
      total_rows integer,
      parsed_rows integer not null default 0,
      merged_rows integer not null default 0,
      created integer not null default 0,
      updated integer not null default 0,
      skipped integer not null default 0,
      failed integer not null default 0,
      duplicates integer not null default 0,
      error text,
      created_by bigint,
      created_at timestamptz not null default now(),
      finished_at timestamptz,
      primary key (account_id, id)
    );

    create table import_rows (
      account_id bigint not null,
      import_id bigint not null,
      row_no integer not null,
      email text not null,
      email_lower text not null,
      first_name text,
      last_name text,
      phone text,
      company text,
      website text,
      external_id text,
      fields jsonb not null default '{}',
      tags text[] not null default '{}',
      primary key (account_id, import_id, row_no)
    );
    create index import_rows_email_idx on import_rows (account_id, import_id, email_lower, row_no);

    create table import_failures (
      account_id bigint not null,
      import_id bigint not null,
      row_no integer not null,
      reason text not null,
      primary key (account_id, import_id, row_no)
    );

  `.execute(db);
  await protectTenantTables(db, ['imports', 'import_rows', 'import_failures']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table import_failures, import_rows, imports`.execute(db);
}
