import { sql, type Kysely } from 'kysely';
import { searchFunction } from './0054-people-search-sample.ts';
import { declare as blocksDeclare, walks } from './0061-people-search-blocks.ts';

/**
 * People search finds a term's newest matches a stretch of people at a time (issue 56, docs/people.md, "Pieces by
 * stretch of people"). The trigram index answered a term the walks could not (part of an address: `anna.s`,
 * `chloe.mart`, `liam.g`) with every match of the account, and read the whole posting list of each of the term's
 * trigrams to find them: `anna.s` holds `ann`, `nna` and `naq`, each in 40,000 of the bench account's million
 * entries, for 2,048 matches, of which the page needs the newest 101. That took 19 ms in the index and 11 ms more
 * to read and sort the matches.
 *
 * The index now keys each entry's three-character pieces (every run of three characters of its text, punctuation
 * and spaces included) by account and by stretch of 131,072 person ids: `100:7:ann` is `ann` among account 100's
 * people of ids 917,504 to 1,048,575. An entry that holds the term holds each of the term's pieces, so the entries
 * of a stretch holding all of them are the stretch's candidates, checked with `like`. The search asks the newest
 * stretch first and goes on to older ones only while the page is not full: `anna.s` reads 187 candidates of one
 * stretch (1.1 ms against 31 ms). A term of one or two characters has no piece and is scanned, as before.
 *
 * Pieces of the text itself rather than the trigram extension's words: a piece of three characters of the term is a
 * piece of any entry that holds the term, whatever the characters, so the index needs no word rules, and names in
 * any script are found through it.
 */

/** Person ids a stretch spans: 2^17. */
const stretchBits = 17;

/** The search's final step over the grams; the walks before it are migration 0061's. */
const gramsSearch = `
      -- The term's matches, a stretch of people at a time, newest first: the stretch of the newest entry, then the
      -- stretch of the newest entry below it, until the page is full. Archived people are left out as the
      -- candidates come, newest first.
      found := '{}';
      select max(s.person_id) into below from people_search s where s.account_id = acc;
      while below is not null loop
        stretch := below >> ${stretchBits};
        select array_agg(k.id order by k.id desc) into candidates from (
          select c.id from (
            select s.person_id as id from people_search s
            where herald_search_grams(s.account_id, s.person_id, s.search) @> herald_search_grams(acc, stretch << ${stretchBits}, lower(term))
              and s.account_id = acc and s.search like pattern
            order by s.person_id + 0 desc offset 0
          ) c
          where exists (select 1 from people p where p.account_id = acc and p.id = c.id and p.archived_at is null)
          limit want - cardinality(found)
        ) k;
        found := found || coalesce(candidates, '{}');
        exit when cardinality(found) >= want;
        select max(s.person_id) into below from people_search s
          where s.account_id = acc and s.person_id < stretch << ${stretchBits};
      end loop;`;

function gramsFunction() {
  return sql.raw(`
    create or replace function herald_search_people(term text, lim int, off int) returns setof bigint
    language plpgsql stable security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint := nullif(current_setting('herald.account_id', true), '')::bigint;
      pattern text := '%' || replace(replace(replace(lower(term), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%';
      want int := lim + off;
      recent bigint[];
      exact bigint;
      candidates bigint[];
      found bigint[];
      cap int := 2 * (lim + off) + 100;
      below bigint;
      stretch bigint;${blocksDeclare}
    begin
      if acc is null then
        return;
      end if;
      -- A whole email finds its person through the email index at once, also while an import's search entries
      -- are still being filled; other entries holding the same text come from the grams.
      select p.id into exact from people p where p.account_id = acc and p.email_key = lower(term) and p.archived_at is null;
      if exact is null then
        ${walks}
        -- A term of one or two characters has no piece of three: its newest matches come from a plain scan of the
        -- entries, checked against people for archived ones (checking every match cost more than finding them).
        if length(term) < 3 then
          raise debug 'herald_search_people: short term, scanned';
          select array_agg(k.person_id order by k.person_id desc) into candidates from (
            select s.person_id from people_search s where s.account_id = acc and s.search like pattern
            order by s.person_id + 0 desc limit cap
          ) k;
          select array_agg(u.id order by u.id desc) into found from unnest(candidates) u (id)
            where exists (select 1 from people p where p.account_id = acc and p.id = u.id and p.archived_at is null);
          if coalesce(array_length(found, 1), 0) >= want or coalesce(array_length(candidates, 1), 0) < cap then
            return query select unnest(found[off + 1 : off + lim]);
            return;
          end if;
          -- Many archived people among the newest matches: check them all.
          return query select s.person_id from people_search s
            join people p on p.account_id = acc and p.id = s.person_id and p.archived_at is null
            where s.account_id = acc and s.search like pattern
            order by s.person_id desc limit lim offset off;
          return;
        end if;
      end if;
      raise debug 'herald_search_people: grams';
      ${gramsSearch}
      if exact is not null then
        found := array(select distinct u.id from unnest(found || exact) u (id) order by u.id desc);
      end if;
      return query select unnest(found[off + 1 : off + lim]);
    end $fn$`);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- An entry's pieces: every run of three characters of its text, each keyed by the account and the stretch of
    -- the person's id. The search asks for the term's pieces with the same keys (the term as text, its stretch).
    -- PL/pgSQL: a SQL function with a query runs its executor at every call (48 µs an entry against 23 µs).
    create function herald_search_grams(account bigint, person bigint, search text) returns text[]
    language plpgsql immutable parallel safe strict set search_path = pg_catalog as $fn$
    declare
      prefix text := account::text || ':' || (person >> ${sql.raw(String(stretchBits))})::text || ':';
      n int := length(search) - 2;
      grams text[];
    begin
      if n < 1 then
        return '{}';
      end if;
      grams := array_fill(prefix, array[n]);
      for i in 1..n loop
        grams[i] := prefix || substr(search, i, 3);
      end loop;
      return grams;
    end $fn$;
    create index people_search_grams_idx on people_search using gin (herald_search_grams(account_id, person_id, search));
    drop index people_search_trgm_idx;
  `.execute(db);
  await gramsFunction().execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index people_search_trgm_idx on people_search using gin (account_id, herald_search_key(search) gin_trgm_ops);
  `.execute(db);
  await searchFunction(true, true, { declare: blocksDeclare, walks }).execute(db);
  await sql`
    drop index people_search_grams_idx;
    drop function herald_search_grams(bigint, bigint, text);
  `.execute(db);
}
