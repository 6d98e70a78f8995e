import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * The AI writer (issue 21): each suggestion the model drafted, and each account's tokens per calendar month (UTC),
 * counted from the provider's usage figures, so the monthly budget holds across API processes and restarts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table ai_suggestions (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity (start with 100),
      use_case text not null check (use_case in ('subjectLine', 'writeEmail', 'emailOutline')),
      content text not null,
      created_at timestamptz not null default now(),
      primary key (account_id, id)
    );
    create index ai_suggestions_newest on ai_suggestions (account_id, created_at desc, id desc);
    create table ai_token_use (
      account_id bigint not null references accounts (id) on delete cascade,
      month date not null,
      tokens bigint not null default 0,
      requests integer not null default 0,
      primary key (account_id, month)
    );
  `.execute(db);
  await protectTenantTables(db, ['ai_suggestions', 'ai_token_use']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table ai_token_use, ai_suggestions`.execute(db);
}
