import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * A person's data exported or erased on request, and old events deleted (issue 54; docs/people.md, "Export and
 * erase", docs/security.md, "Erased addresses").
 *
 * - `erased_addresses`: one row per erased address, holding only `herald_erased_hash(account, email)`: SHA-256 of
 *   `herald-erased:<account id>:<lower-case address>`. Not the address: it cannot be read back, only matched by someone
 *   who already has the address (an import, a form, the API).
 * - `suppressions.reason` takes 'erased': the suppression an erased address gets again when it comes back.
 * - Triggers on `people` (after insert, per statement; after update of email, per row): a person whose address
 *   matches an erased hash gets that suppression at once, so every way in (import's COPY and merge, forms, the API,
 *   tracking's identify) arrives suppressed, in the statement that wrote the person; the suppression's own trigger
 *   marks the person unsubscribed (0013).
 * - `accounts.event_retention_months`: events older than that many months are deleted by the daily job
 *   ('prune-events'); null (the default) keeps them.
 * - `herald_scrub_audit_people`: the audit log is append-only for herald_app (0050); an erase empties the
 *   before → after of the entries about the people (resource `people` and their id) or naming their address (a
 *   suppression added by hand), keeping who did what and when. Only the current account's entries (the function runs
 *   as the owner, so it checks `herald.account_id` itself).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function herald_erased_hash(account bigint, email text) returns bytea
    language sql immutable parallel safe set search_path = pg_catalog as $fn$
      select sha256(convert_to('herald-erased:' || account::text || ':' || lower(email), 'UTF8'))
    $fn$;

    create table erased_addresses (
      account_id bigint not null references accounts (id) on delete cascade,
      address_hash bytea not null,
      erased_at timestamptz not null default now(),
      primary key (account_id, address_hash)
    );

    alter table suppressions drop constraint suppressions_reason_check;
    alter table suppressions add constraint suppressions_reason_check
      check (reason in ('unsubscribed', 'hard-bounce', 'complaint', 'manual', 'invalid', 'erased'));

    create function herald_people_inserted_erased() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      if not exists (select 1 from erased_addresses e where e.account_id = (select n.account_id from new_rows n limit 1)) then
        return null;
      end if;
      with added as (
        insert into suppressions (account_id, email, reason, source, note)
        select distinct n.account_id, lower(n.email), 'erased', 'erasure', 'Erased earlier on request'
        from new_rows n join erased_addresses e
          on e.account_id = n.account_id and e.address_hash = herald_erased_hash(n.account_id, n.email)
        where n.email is not null
        on conflict (account_id, email) do update set reason = 'erased', source = 'erasure', note = excluded.note
        returning account_id, email, note
      )
      insert into suppression_history (account_id, email, action, reason, source, note)
      select account_id, email, 'added', 'erased', 'erasure', note from added;
      return null;
    end $fn$;
    create trigger people_inserted_erased after insert on people
      referencing new table as new_rows for each statement execute function herald_people_inserted_erased();

    create function herald_people_email_erased() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      if exists (select 1 from erased_addresses e
                 where e.account_id = new.account_id and e.address_hash = herald_erased_hash(new.account_id, new.email)) then
        insert into suppressions (account_id, email, reason, source, note)
        values (new.account_id, lower(new.email), 'erased', 'erasure', 'Erased earlier on request')
        on conflict (account_id, email) do update set reason = 'erased', source = 'erasure', note = excluded.note;
        insert into suppression_history (account_id, email, action, reason, source, note)
        values (new.account_id, lower(new.email), 'added', 'erased', 'erasure', 'Erased earlier on request');
      end if;
      return null;
    end $fn$;
    create trigger people_email_erased after update of email on people
      for each row when (new.email is not null and old.email is distinct from new.email)
      execute function herald_people_email_erased();

    alter table accounts add column event_retention_months int
      check (event_retention_months between 1 and 120);

    create function herald_scrub_audit_people(account bigint, people text[], emails text[]) returns bigint
    language sql security definer set search_path = pg_catalog, public as $fn$
      with scrubbed as (
        update audit_log set changes = null
        where account_id = account and account = current_setting('herald.account_id', true)::bigint
          and changes is not null
          and ((resource_type = 'people' and resource_id = any(people))
            or lower(changes::text) like any (select '%' || replace(replace(e, '%', '\\%'), '_', '\\_') || '%' from unnest(emails) e))
        returning 1
      )
      select count(*) from scrubbed;
    $fn$;
    revoke all on function herald_scrub_audit_people(bigint, text[], text[]) from public;
    grant execute on function herald_scrub_audit_people(bigint, text[], text[]) to herald_app;
  `.execute(db);
  await protectTenantTables(db, ['erased_addresses']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function herald_scrub_audit_people(bigint, text[], text[]);
    alter table accounts drop column event_retention_months;
    drop trigger people_email_erased on people;
    drop function herald_people_email_erased();
    drop trigger people_inserted_erased on people;
    drop function herald_people_inserted_erased();
    delete from suppressions where reason = 'erased';
    alter table suppressions drop constraint suppressions_reason_check;
    alter table suppressions add constraint suppressions_reason_check
      check (reason in ('unsubscribed', 'hard-bounce', 'complaint', 'manual', 'invalid'));
    drop table erased_addresses;
    drop function herald_erased_hash(bigint, text);
  `.execute(db);
}
