import { sql, type Kysely } from 'kysely';

/**
 * The two rollup tables that take a row per recipient (`email_metric_firsts`, `email_metrics_people`) lose their
 * foreign key to accounts (issue 18). The key was checked row by row: for each open or click of a new recipient,
 * two lookups of the account, a quarter of the rollup's time. The tables that take a row per hour or link keep
 * theirs (a few rows a batch).
 *
 * What the key did, deleting an account's rows with the account, statement triggers on accounts now do. Before
 * the delete they take the rollup's lock, so that a rollup under way (which saw the account still there) commits
 * first and its rows are deleted too, and a rollup that starts later finds the account gone. The lock is taken
 * before the account rows are: a rollup checks the keys of its hourly rows against them while it holds the lock.
 */
export const rollupLockKey = 1_818_001;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table email_metric_firsts drop constraint email_metric_firsts_account_id_fkey;
    alter table email_metrics_people drop constraint email_metrics_people_account_id_fkey;

    create function herald_accounts_deleting_metrics() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      perform pg_advisory_xact_lock(${sql.lit(rollupLockKey)});
      return null;
    end $fn$;
    create trigger accounts_deleting_metrics before delete on accounts
      for each statement execute function herald_accounts_deleting_metrics();

    create function herald_accounts_deleted_metrics() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      delete from email_metric_firsts f using old_rows o where f.account_id = o.id;
      delete from email_metrics_people p using old_rows o where p.account_id = o.id;
      return null;
    end $fn$;
    create trigger accounts_deleted_metrics after delete on accounts
      referencing old table as old_rows for each statement execute function herald_accounts_deleted_metrics();

    -- Rows left by accounts deleted before now would have gone with them.
    delete from email_metric_firsts f where not exists (select 1 from accounts a where a.id = f.account_id);
    delete from email_metrics_people p where not exists (select 1 from accounts a where a.id = p.account_id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger accounts_deleted_metrics on accounts;
    drop function herald_accounts_deleted_metrics();
    drop trigger accounts_deleting_metrics on accounts;
    drop function herald_accounts_deleting_metrics();
    delete from email_metric_firsts f where not exists (select 1 from accounts a where a.id = f.account_id);
    delete from email_metrics_people p where not exists (select 1 from accounts a where a.id = p.account_id);
    alter table email_metric_firsts add foreign key (account_id) references accounts (id) on delete cascade;
    alter table email_metrics_people add foreign key (account_id) references accounts (id) on delete cascade;
  `.execute(db);
}
