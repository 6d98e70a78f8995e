import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * What must hold before anything is sent: sender addresses proved by a link, sender domains with their
 * DKIM keys and last DNS check, one suppression list per account (with its history), communication
 * categories (every account gets a marketing default and a transactional one) and each person's
 * choices per category. A person's `unsubscribed_at` / `unsubscribe_reason` mirror the suppression of
 * their address, kept by triggers in the same transaction, so segments (the Unsubscribed automatic
 * segment, status conditions) read the suppression list through the columns they already use.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sender_addresses (
      account_id bigint not null references accounts (id) on delete cascade,
      email text not null check (email = lower(email)),
      status text not null default 'pending' check (status in ('pending', 'verified')),
      -- SHA-256 of the nonce in the latest verification link; null once a link was used.
      verification_nonce text,
      verification_sent_at timestamptz,
      verified_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id, email)
    );

    create table sender_domains (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity (start with 10),
      domain text not null check (domain = lower(domain)),
      dkim_selector text not null,
      dkim_public_key text not null,
      -- Encrypted at rest with a key derived from the server secret (lib/sealed-tokens.ts).
      dkim_private_key text not null,
      status text not null default 'pending' check (status in ('pending', 'verified', 'failing')),
      records jsonb not null default '[]',
      last_check_complete boolean not null default true,
      checked_at timestamptz,
      verified_at timestamptz,
      created_at timestamptz not null default now(),
      primary key (account_id, id),
      unique (account_id, domain)
    );

    create table suppressions (
      account_id bigint not null references accounts (id) on delete cascade,
      email text not null check (email = lower(email)),
      reason text not null check (reason in ('unsubscribed', 'hard-bounce', 'complaint', 'manual', 'invalid')),
      source text not null,
      note text,
      created_at timestamptz not null default now(),
      primary key (account_id, email)
    );
    create index suppressions_recent_idx on suppressions (account_id, created_at desc);

    create table suppression_history (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      email text not null,
      action text not null check (action in ('added', 'removed')),
      reason text not null,
      source text not null,
      note text,
      at timestamptz not null default now(),
      primary key (account_id, id)
    );
    create index suppression_history_email_idx on suppression_history (account_id, email, at desc);

    create table communication_categories (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity (start with 10),
      name text not null,
      description text not null default '',
      type text not null default 'marketing' check (type in ('marketing', 'transactional')),
      is_default boolean not null default false,
      is_archived boolean not null default false,
      created_at timestamptz not null default now(),
      primary key (account_id, id),
      check (not (is_default and is_archived))
    );
    create unique index communication_categories_default_key on communication_categories (account_id) where is_default;
    create unique index communication_categories_name_key on communication_categories (account_id, lower(name));

    create table communication_preferences (
      account_id bigint not null,
      person_id bigint not null,
      category_id bigint not null,
      value text not null check (value in ('optIn', 'optOut')),
      updated_at timestamptz not null default now(),
      primary key (account_id, person_id, category_id),
      foreign key (account_id, person_id) references people (account_id, id) on delete cascade,
      foreign key (account_id, category_id) references communication_categories (account_id, id) on delete cascade
    );
    create index communication_preferences_category_idx on communication_preferences (account_id, category_id, value);

    alter table emails add column category_id bigint;
    alter table emails add foreign key (account_id, category_id) references communication_categories (account_id, id);

    -- Which DKIM key signs a message: the account's verified domain of its From address.
    alter table mail_deliveries add column dkim_domain_id bigint;

    -- Every account gets its default categories, now and when it is created.
    create function herald_create_default_categories(acc bigint) returns void
    language sql security definer set search_path = pg_catalog, public as $fn$
      insert into communication_categories (account_id, name, description, type, is_default)
      select acc, c.name, c.description, c.type, c.is_default from (values
        ('Newsletter', 'News, product updates and offers.', 'marketing', true),
        ('Account notices', 'Receipts, security notices and messages about your account.', 'transactional', false)
      ) as c (name, description, type, is_default)
      where not exists (select 1 from communication_categories x where x.account_id = acc)
    $fn$;
    create function herald_account_categories() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      perform herald_create_default_categories(new.id);
      return null;
    end $fn$;
    create trigger accounts_default_categories after insert on accounts
      for each row execute function herald_account_categories();
    select herald_create_default_categories(id) from accounts;

    -- A suppression added, changed or lifted shows on the person with that address at once.
    create function herald_mirror_suppression() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      if tg_op = 'DELETE' then
        update people set unsubscribed_at = null, unsubscribe_reason = null
        where account_id = old.account_id and lower(email) = old.email and unsubscribed_at is not null;
        return null;
      end if;
      update people set unsubscribed_at = new.created_at, unsubscribe_reason = new.reason
      where account_id = new.account_id and lower(email) = new.email
        and (unsubscribed_at is distinct from new.created_at or unsubscribe_reason is distinct from new.reason);
      return null;
    end $fn$;
    create trigger suppressions_mirror after insert or update or delete on suppressions
      for each row execute function herald_mirror_suppression();

    -- People added with a suppressed address (by hand, API or import) arrive suppressed: one join per statement.
    -- A statement writes one account's people (row-level security holds every write to herald.account_id), so an
    -- account without suppressions costs one index probe, not a pass over a million imported rows.
    create function herald_people_inserted_suppressed() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      if not exists (select 1 from suppressions s where s.account_id = (select n.account_id from new_rows n limit 1)) then
        return null;
      end if;
      update people p set unsubscribed_at = s.created_at, unsubscribe_reason = s.reason
      from new_rows n join suppressions s on s.account_id = n.account_id and s.email = lower(n.email)
      where p.account_id = n.account_id and p.id = n.id and n.email is not null;
      return null;
    end $fn$;
    create trigger people_inserted_suppressed after insert on people
      referencing new table as new_rows for each statement execute function herald_people_inserted_suppressed();

    -- A person whose address changes takes the suppression of the new address (or none).
    create function herald_people_email_suppressed() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      s record;
    begin
      select created_at, reason into s from suppressions where account_id = new.account_id and email = lower(new.email);
      new.unsubscribed_at := s.created_at;
      new.unsubscribe_reason := s.reason;
      return new;
    end $fn$;
    create trigger people_email_suppressed before update of email on people
      for each row when (old.email is distinct from new.email) execute function herald_people_email_suppressed();
  `.execute(db);
  await protectTenantTables(db, [
    'sender_addresses',
    'sender_domains',
    'suppressions',
    'suppression_history',
    'communication_categories',
    'communication_preferences',
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger people_email_suppressed on people;
    drop trigger people_inserted_suppressed on people;
    drop trigger suppressions_mirror on suppressions;
    drop trigger accounts_default_categories on accounts;
    drop function herald_people_email_suppressed();
    drop function herald_people_inserted_suppressed();
    drop function herald_mirror_suppression();
    drop function herald_account_categories();
    drop function herald_create_default_categories(bigint);
    alter table mail_deliveries drop column dkim_domain_id;
    alter table emails drop column category_id;
    drop table communication_preferences;
    drop table communication_categories;
    drop table suppression_history;
    drop table suppressions;
    drop table sender_domains;
    drop table sender_addresses;
  `.execute(db);
}
