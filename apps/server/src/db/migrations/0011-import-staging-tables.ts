import { sql, type Kysely } from 'kysely';

/**
 * Each import stages its rows in a table of its own in the `import_staging` schema, made when its
 * parse starts and dropped when it ends (staging-table.ts). Deleting a million staged rows from one
 * shared table took a second at the end of every big import and left them dead for vacuum to clear
 * (5.5 GB after a dozen bench runs with autovacuum off); dropping a table does neither. An import in
 * flight during this migration finds its staging table missing and parses its file again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create schema import_staging;
    grant usage on schema import_staging to herald_app;
    drop table import_rows;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop schema import_staging cascade;
    create unlogged table import_rows (
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
    grant select, insert, update, delete on import_rows to herald_app;
    alter table import_rows enable row level security;
    create policy tenant on import_rows using (account_id = current_setting('herald.account_id', true)::bigint);
  `.execute(db);
}
