import { sql, type Kysely } from 'kysely';

/**
 * Two row-by-row costs leave the insert of events (issue 18). Every open and click is an event, and these two made
 * about a third of what PostgreSQL spent writing one. Each was measured on 50,000 tracking events, five runs each,
 * taking turns with the other form:
 *
 * 1. **The foreign key to accounts.** It looked the account up and key-share locked it once for each row: about
 *    6 µs a row. A statement trigger now does the same once for each account of the statement. It key-share locks
 *    the account row and refuses the statement with the key's error (23503, `events_account_id_fkey`) when the row
 *    is gone. The lock holds until commit, as the key's did:
 *    - an account delete that comes later waits, and its cascade then sees the events;
 *    - an account deleted first makes the check find no row, and the insert fails.
 *    What the key's cascade did, a statement trigger on accounts now does (`accounts_deleted_events`). An update
 *    that would move an event to another account is refused, as the key refused one to an account that does not
 *    exist.
 * 2. **`events_broadcast_engagement_idx`** (migration 0017), which only the A/B decision read: about 4 µs an open
 *    or click. The decision now counts the first opens and clicks of the metrics rollup (`email_metric_firsts`).
 *    These already exclude machine hits and count each person once per email and variant.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table events drop constraint events_account_id_fkey;
    drop index events_broadcast_engagement_idx;

    create function herald_events_account_check() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint;
    begin
      for acc in select distinct account_id from new_rows loop
        perform 1 from accounts where id = acc for key share;
        if not found then
          raise exception 'insert or update on table "events" violates foreign key constraint "events_account_id_fkey"'
            using errcode = 'foreign_key_violation', detail = format('Key (account_id)=(%s) is not present in table "accounts".', acc),
              table = 'events', constraint = 'events_account_id_fkey';
        end if;
      end loop;
      return null;
    end $fn$;
    create trigger events_inserted_account after insert on events
      referencing new table as new_rows for each statement execute function herald_events_account_check();

    create function herald_events_account_fixed() returns trigger
    language plpgsql as $fn$
    begin
      raise exception 'an event cannot move to another account' using errcode = 'foreign_key_violation', table = 'events';
    end $fn$;
    create trigger events_account_fixed before update of account_id on events
      for each row when (old.account_id is distinct from new.account_id) execute function herald_events_account_fixed();

    create function herald_accounts_deleted_events() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      delete from events e using old_rows o where e.account_id = o.id;
      return null;
    end $fn$;
    create trigger accounts_deleted_events after delete on accounts
      referencing old table as old_rows for each statement execute function herald_accounts_deleted_events();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger accounts_deleted_events on accounts;
    drop function herald_accounts_deleted_events();
    drop trigger events_account_fixed on events;
    drop function herald_events_account_fixed();
    drop trigger events_inserted_account on events;
    drop function herald_events_account_check();
    delete from events e where not exists (select 1 from accounts a where a.id = e.account_id);
    alter table events add foreign key (account_id) references accounts (id) on delete cascade;
    create index events_broadcast_engagement_idx on events (account_id, (data->>'broadcastId'), name)
      where type = 'email' and name in ('opened', 'clicked');
  `.execute(db);
}
