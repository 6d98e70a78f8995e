import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Emails and what sending them needs from the account. An email keeps the HTML that is rendered and
 * sent (`html`) beside its editor's own state (`editor`: type, state, the HTML the editor produced).
 * Messages of the mail path learn a From name and Reply-To and carry extra headers (List-Unsubscribe),
 * so test sends of an email go through the same queued, idempotent path as system mail.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table emails (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity (start with 100),
      name text not null default 'Unnamed email',
      subject text not null,
      preheader text not null default '',
      from_name text not null default '',
      from_email text not null,
      reply_to text,
      html text not null default '',
      type text not null default 'HTML',
      editor jsonb not null default '{"type": "html", "state": null, "html": ""}',
      archived boolean not null default false,
      created_by bigint,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id, id)
    );
    create index emails_list_idx on emails (account_id, archived, updated_at desc);

    alter table accounts add column default_from_name text, add column default_from_email text;

    alter table mail_deliveries
      add column reply_to text,
      add column headers jsonb not null default '{}';
  `.execute(db);
  await protectTenantTables(db, ['emails']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table mail_deliveries drop column reply_to, drop column headers;
    alter table accounts drop column default_from_name, drop column default_from_email;
    drop table emails;
  `.execute(db);
}
