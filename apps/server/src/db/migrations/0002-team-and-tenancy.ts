import { sql, type Kysely } from 'kysely';

/** herald_enqueue as this migration wrote it (migration 0060's down writes it back). */
export const enqueueFunction = `function herald_enqueue(task text, payload json, job_key text, run_at timestamptz, max_attempts int)
    returns void language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      perform graphile_worker.add_job(task, payload, job_key => job_key, run_at => run_at, max_attempts => max_attempts);
    end $fn$`;

/**
 * Team invitations, API keys, sub-accounts, and row-level security: every tenant table only shows
 * rows of the account named by `herald.account_id` to the role `herald_app`, which the API assumes
 * for every signed-in request (db/tenancy.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table team_members
      add column invited_at timestamptz,
      add column accepted_at timestamptz,
      add column invited_by bigint;
    update team_members set accepted_at = created_at;

    alter table accounts
      add column parent_account_id bigint references accounts (id) on delete set null,
      add column api_key_hash text unique,
      add column api_key_hint text,
      add column deleting_at timestamptz;
    create index accounts_parent_idx on accounts (parent_account_id);

    -- Problems that pause the account's sending until someone looks (the 'Pending Account Issues' modal).
    create table account_issues (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      kind text not null,
      message text not null,
      created_at timestamptz not null default now(),
      resolved_at timestamptz,
      primary key (account_id, id)
    );

    do $$ begin
      if not exists (select 1 from pg_roles where rolname = 'herald_app') then
        create role herald_app nologin;
      end if;
    end $$;
    grant herald_app to current_user;
    grant usage on schema public to herald_app;
    grant select, insert, update, delete on all tables in schema public to herald_app;
    grant usage, select on all sequences in schema public to herald_app;
    alter default privileges in schema public grant select, insert, update, delete on tables to herald_app;
    alter default privileges in schema public grant usage, select on sequences to herald_app;

    -- graphile-worker keeps its tables to their owner; signed-in requests (role herald_app) enqueue
    -- through this owner-rights function, in their own transaction.
    create ${sql.raw(enqueueFunction)};
    revoke all on function herald_enqueue(text, json, text, timestamptz, int) from public;
    grant execute on function herald_enqueue(text, json, text, timestamptz, int) to herald_app;

    alter table accounts enable row level security;
    create policy tenant on accounts using (id = current_setting('herald.account_id', true)::bigint);
    alter table team_members enable row level security;
    create policy tenant on team_members using (account_id = current_setting('herald.account_id', true)::bigint);
    alter table account_issues enable row level security;
    create policy tenant on account_issues using (account_id = current_setting('herald.account_id', true)::bigint);
    alter table mail_deliveries enable row level security;
    create policy tenant on mail_deliveries using (account_id = current_setting('herald.account_id', true)::bigint);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function herald_enqueue(text, json, text, timestamptz, int);
    drop policy tenant on mail_deliveries; alter table mail_deliveries disable row level security;
    drop policy tenant on account_issues; drop policy tenant on team_members; drop policy tenant on accounts;
    alter table team_members disable row level security; alter table accounts disable row level security;
    drop table account_issues;
    alter table accounts drop column parent_account_id, drop column api_key_hash, drop column api_key_hint, drop column deleting_at;
    alter table team_members drop column invited_at, drop column accepted_at, drop column invited_by;
  `.execute(db);
}
