import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Transactional sends (POST /v1/transactional/send): one row per accepted request, holding what the pipeline
 * sends (a saved email, or ad-hoc content under email id -12345), the caller's merge data and category, and the
 * delivery it queued. The caller's Idempotency-Key is unique per account; the request hash tells a retry of the
 * same request (answered with the first result) from a different request under a reused key (refused).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table transactional_sends (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      idempotency_key text check (char_length(idempotency_key) between 1 and 200),
      request_hash text not null,
      email_id bigint not null,
      to_address text not null,
      -- Ad-hoc content (email id -12345); null for a saved email, which is read as it is when sent.
      subject text,
      preheader text,
      html text,
      from_email text,
      from_name text,
      reply_to text,
      data jsonb not null default '{}',
      category_id bigint not null,
      delivery_id bigint,
      created_at timestamptz not null default now(),
      primary key (account_id, id),
      foreign key (account_id, category_id) references communication_categories (account_id, id)
    );
    create unique index transactional_sends_idempotency_key on transactional_sends (account_id, idempotency_key) where idempotency_key is not null;
  `.execute(db);
  await protectTenantTables(db, ['transactional_sends']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table transactional_sends`.execute(db);
}
