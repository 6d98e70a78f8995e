import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * People's search entries move out of `people` into `people_search` (issue 23). As a generated column of people
 * with a trigram index, every new row version of a person (an import's update of a phone number, tags added)
 * wrote a few dozen trigram entries, about a third of an import's merge. In a table of their own they change
 * only when the searchable text (email, first and last name) changes, and an import leaves them out of its merge
 * transactions altogether (`herald.search_deferred`) and fills them in bulk right after it is done
 * (`people-search-fill`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function herald_person_search(email text, first_name text, last_name text) returns text
    language sql immutable parallel safe as $fn$
      select lower(coalesce(email, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, ''))
    $fn$;

    create table people_search (
      account_id bigint not null,
      person_id bigint not null,
      search text not null,
      primary key (account_id, person_id)
    );
    insert into people_search (account_id, person_id, search) select account_id, id, search from people;
    create index people_search_trgm_idx on people_search using gin (account_id, search gin_trgm_ops);
    drop index people_search_idx;
    alter table people drop column search;

    -- Whether this transaction's writes to people leave search entries to a bulk fill (an import's merge).
    create function herald_search_deferred() returns boolean
    language sql stable parallel safe as $fn$
      select coalesce(current_setting('herald.search_deferred', true), '') = 'on'
    $fn$;

    create function herald_people_search_inserted() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      if herald_search_deferred() then
        return null;
      end if;
      insert into people_search (account_id, person_id, search)
        select n.account_id, n.id, herald_person_search(n.email, n.first_name, n.last_name) from new_rows n
        on conflict (account_id, person_id) do update set search = excluded.search;
      return null;
    end $fn$;
    create trigger people_search_inserted after insert on people
      referencing new table as new_rows for each statement execute function herald_people_search_inserted();

    -- Row by row, and only for rows whose searchable text changed: the WHEN clause is checked without calling
    -- the function, so updates of anything else (tags, fields, unsubscribes) cost nothing here.
    create function herald_people_search_updated() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      insert into people_search (account_id, person_id, search)
        values (new.account_id, new.id, herald_person_search(new.email, new.first_name, new.last_name))
        on conflict (account_id, person_id) do update set search = excluded.search;
      return null;
    end $fn$;
    create trigger people_search_updated after update of email, first_name, last_name on people
      for each row when (
        (old.email is distinct from new.email or old.first_name is distinct from new.first_name or old.last_name is distinct from new.last_name)
        and not herald_search_deferred()
      ) execute function herald_people_search_updated();

    create function herald_people_search_deleted() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      delete from people_search s using old_rows o where s.account_id = o.account_id and s.person_id = o.id;
      return null;
    end $fn$;
    create trigger people_search_deleted after delete on people
      referencing old table as old_rows for each statement execute function herald_people_search_deleted();

    -- Search in an owner-rights function (LIKE is not leakproof, so under row-level security it could not use the
    -- trigram index); the account comes from the transaction's herald.account_id, never from an argument.
    create or replace function herald_search_people(term text, lim int, off int) returns setof bigint
    language plpgsql stable security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint := nullif(current_setting('herald.account_id', true), '')::bigint;
      pattern text := '%' || replace(replace(replace(lower(term), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%';
      recent bigint[];
      exact bigint;
      candidates bigint[];
      found bigint[];
      cap int := 2 * (lim + off) + 100;
    begin
      if acc is null then
        return;
      end if;
      -- A whole email finds its person through the email index at once, also while an import's search entries
      -- are still being filled.
      select p.id into exact from people p where p.account_id = acc and p.email_key = lower(term) and p.archived_at is null;
      if exact is not null then
        return query select u.id from (
          select exact as id
          union
          select s.person_id from people_search s
          join people p on p.account_id = acc and p.id = s.person_id and p.archived_at is null
          where s.account_id = acc and s.search like pattern
        ) u order by u.id desc limit lim offset off;
        return;
      end if;
      -- Common terms: the newest 20,000 entries hold a full page, found by walking the primary key.
      select array_agg(t.id order by t.id desc) into recent from (
        select r.person_id as id from (
          select s.person_id, s.search from people_search s
          where s.account_id = acc
          order by s.person_id desc limit 20000
        ) r
        where r.search like pattern
          and exists (select 1 from people p where p.account_id = acc and p.id = r.person_id and p.archived_at is null)
        order by r.person_id desc limit lim + off
      ) t;
      if coalesce(array_length(recent, 1), 0) >= lim + off then
        return query select unnest(recent[off + 1 : off + lim]);
        return;
      end if;
      -- Rarer terms: the trigram index finds the matches; the newest of them are checked against people for
      -- archived ones (checking every match cost more than finding them).
      select array_agg(k.person_id order by k.person_id desc) into candidates from (
        select s.person_id from people_search s where s.account_id = acc and s.search like pattern
        -- '+ 0': sorted, not walked backwards through the primary key, which the planner prefers under a limit and
        -- which reads every newer entry first (half a million of them after a big import of other names).
        order by s.person_id + 0 desc limit cap
      ) k;
      select array_agg(u.id order by u.id desc) into found from unnest(candidates) u (id)
        where exists (select 1 from people p where p.account_id = acc and p.id = u.id and p.archived_at is null);
      if coalesce(array_length(found, 1), 0) >= lim + off or coalesce(array_length(candidates, 1), 0) < cap then
        return query select unnest(found[off + 1 : off + lim]);
        return;
      end if;
      -- Many archived people among the newest matches: check them all.
      return query select s.person_id from people_search s
        join people p on p.account_id = acc and p.id = s.person_id and p.archived_at is null
        where s.account_id = acc and s.search like pattern
        order by s.person_id desc limit lim offset off;
    end $fn$;
  `.execute(db);
  await protectTenantTables(db, ['people_search']);
  await sql`analyze people_search`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger people_search_inserted on people;
    drop trigger people_search_updated on people;
    drop trigger people_search_deleted on people;
    drop function herald_people_search_inserted();
    drop function herald_people_search_updated();
    drop function herald_people_search_deleted();
    alter table people add column search text generated always as (
      lower(coalesce(email, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, ''))
    ) stored;
    create index people_search_idx on people using gin (account_id, search gin_trgm_ops);
    create or replace function herald_search_people(term text, lim int, off int) returns setof bigint
    language plpgsql stable security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint := nullif(current_setting('herald.account_id', true), '')::bigint;
      pattern text := '%' || replace(replace(replace(lower(term), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%';
    begin
      if acc is null then
        return;
      end if;
      return query select p.id from people p
        where p.account_id = acc and p.archived_at is null and p.search like pattern
        order by p.id desc limit lim offset off;
    end $fn$;
    drop table people_search;
    drop function herald_search_deferred();
    drop function herald_person_search(text, text, text);
  `.execute(db);
}
