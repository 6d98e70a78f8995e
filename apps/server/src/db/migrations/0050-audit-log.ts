import { sql, type Kysely } from 'kysely';

/**
 * The audit log (docs/security.md, "Audit log"): one row per change made by a team member or the API key, written in
 * the same transaction as the change. The app's role (herald_app) may add and read rows of its account, never change
 * or remove them: update, delete and truncate are revoked (the default privileges of 0002 grant them on every new
 * table). Old rows leave through `herald_prune_audit_log`, an owner-rights function the daily job calls, by each
 * account's `audit_log_retention_months`. Deleting an account deletes its rows (on delete cascade: referential
 * actions run as the table's owner).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table audit_log (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      at timestamptz not null default now(),
      actor_kind text not null check (actor_kind in ('member', 'api_key', 'system')),
      actor_user_id bigint,
      actor_label text not null,
      ip text,
      action text not null,
      resource_type text not null,
      resource_id text,
      changes jsonb,
      primary key (account_id, id)
    );
    create index audit_log_at_idx on audit_log (account_id, at desc, id desc);

    alter table audit_log enable row level security;
    create policy tenant on audit_log using (account_id = current_setting('herald.account_id', true)::bigint);
    revoke all on audit_log from herald_app;
    grant select, insert on audit_log to herald_app;

    alter table accounts add column audit_log_retention_months int not null default 24
      check (audit_log_retention_months between 1 and 120);

    create function herald_prune_audit_log() returns bigint
    language sql security definer set search_path = pg_catalog, public as $fn$
      with gone as (
        delete from audit_log l using accounts a
        where a.id = l.account_id and l.at < now() - make_interval(months => a.audit_log_retention_months)
        returning 1
      )
      select count(*) from gone;
    $fn$;
    revoke all on function herald_prune_audit_log() from public;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function herald_prune_audit_log();
    alter table accounts drop column audit_log_retention_months;
    drop table audit_log;
  `.execute(db);
}
