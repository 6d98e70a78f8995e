import { sql, type Kysely } from 'kysely';

/** Identities, accounts, team members, sessions, password resets, rate limits, mail. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- A login identity; one user can belong to several accounts through team_members.
    create table users (
      id bigint generated always as identity primary key,
      email text not null,
      password_hash text,
      name text,
      google_sub text unique,
      created_with_google boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index users_email_key on users (lower(email));

    -- Ids start at 100: id 1 is the master account and small ids have meanings in the spec.
    create table accounts (
      id bigint generated always as identity (start with 100) primary key,
      main_account_id bigint,
      name text,
      account_name text,
      email text not null,
      phone text,
      site text,
      industry text,
      estimated_contacts text,
      goals text,
      previous_tool text,
      source text,
      timezone text not null default 'UTC',
      logo text,
      email_fonts jsonb not null default '[]',
      status text not null default 'trial',
      approved boolean not null default true,
      blocked boolean not null default false,
      test_account boolean not null default false,
      write_key text not null unique,
      mailing_address text,
      link_utms boolean not null default false,
      people_table_fields jsonb not null default '[]',
      form_field_mappings jsonb not null default '{}',
      onboarding jsonb not null default '{}',
      flags jsonb not null default '{}',
      trial_ends_at timestamptz not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table team_members (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      user_id bigint not null references users (id) on delete cascade,
      name text,
      is_owner boolean not null default false,
      scopes jsonb not null default '[]',
      created_at timestamptz not null default now(),
      primary key (account_id, id),
      unique (account_id, user_id)
    );
    create index team_members_user_idx on team_members (user_id);

    -- Server-side sessions: the cookie holds a random token, the table its SHA-256.
    create table sessions (
      id text primary key,
      user_id bigint not null references users (id) on delete cascade,
      account_id bigint not null references accounts (id) on delete cascade,
      created_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      expires_at timestamptz not null,
      user_agent text,
      ip text
    );
    create index sessions_user_idx on sessions (user_id);

    create table password_resets (
      id text primary key,
      user_id bigint not null references users (id) on delete cascade,
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index password_resets_user_idx on password_resets (user_id);

    create table rate_limits (
      key text primary key,
      window_start timestamptz not null,
      hits integer not null
    );

    -- One row per outgoing message, written before the send: a retried job never sends twice.
    create table mail_deliveries (
      idempotency_key text primary key,
      account_id bigint references accounts (id) on delete set null,
      to_address text not null,
      from_address text not null,
      subject text not null,
      text_body text not null,
      html_body text,
      status text not null default 'pending',
      message_id text not null,
      attempts integer not null default 0,
      last_error text,
      created_at timestamptz not null default now(),
      sent_at timestamptz
    );

    -- The built-in mailbox used when no SMTP_URL is set outside production.
    create table dev_mailbox (
      id bigint generated always as identity primary key,
      to_address text not null,
      from_address text not null,
      subject text not null,
      text_body text not null,
      html_body text,
      raw text not null,
      created_at timestamptz not null default now()
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table dev_mailbox, mail_deliveries, rate_limits, password_resets, sessions, team_members, accounts, users`.execute(
    db,
  );
}
