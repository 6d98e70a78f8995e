import { sql, type Kysely } from 'kysely';

/**
 * Row-level security lets PostgreSQL use an index only through leakproof operators: `lower(email)`
 * and `LIKE` are not, so under herald_app they scanned every person. Email lookups now use a stored
 * lower-case column with plain equality; substring search runs in an owner-rights function that
 * reads the account from the transaction's herald.account_id, never from an argument.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table people add column email_key text generated always as (lower(email)) stored;
    create unique index people_email_key_idx on people (account_id, email_key) where email_key is not null;
    drop index people_email_key;

    create function herald_search_people(term text, lim int, off int) returns setof bigint
    language plpgsql stable security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint := nullif(current_setting('herald.account_id', true), '')::bigint;
      pattern text := '%' || replace(replace(replace(lower(term), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%';
      recent bigint[];
    begin
      if acc is null then
        return;
      end if;
      -- Common terms: the newest 20,000 people hold a full page, found by walking the primary key.
      select array_agg(t.id order by t.id desc) into recent from (
        select r.id from (
          select p.id, p.search from people p
          where p.account_id = acc and p.archived_at is null
          order by p.id desc limit 20000
        ) r where r.search like pattern order by r.id desc limit lim + off
      ) t;
      if coalesce(array_length(recent, 1), 0) >= lim + off then
        return query select unnest(recent[off + 1 : off + lim]);
        return;
      end if;
      -- Rarer terms: the trigram index finds the few matches directly.
      return query select p.id from people p
        where p.account_id = acc and p.archived_at is null and p.search like pattern
        order by p.id desc limit lim offset off;
    end $fn$;
    revoke all on function herald_search_people(text, int, int) from public;
    grant execute on function herald_search_people(text, int, int) to herald_app;
  `.execute(db);
  // Without statistics on the new column the planner guesses most rows match and scans them all.
  await sql`analyze people`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function herald_search_people(text, int, int);
    create unique index people_email_key on people (account_id, lower(email)) where email is not null;
    drop index people_email_key_idx;
    alter table people drop column email_key;
  `.execute(db);
}
