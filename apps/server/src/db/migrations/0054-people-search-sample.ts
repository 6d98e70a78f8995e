import { sql, type Kysely } from 'kysely';

/**
 * People search looks at the newest 2,000 search entries before it decides how to go on (issue 56,
 * docs/people.md, "How a search runs"). Migration 0037 walked the newest 20,000 entries for every term that is not a
 * whole email, and only then, when they held less than a page, asked the trigram index. A term found less than once
 * in two hundred entries (part of an address: `liam.g`, `1234`, `wei.tan`) paid for the whole walk and then for the
 * index: on the bench account, 10-12 ms of its 20-40. Now the newest 2,000 entries both answer the commonest terms
 * and measure how common a term is: the walk goes on to 20,000 only when their share of matches promises a page
 * there, else the trigram index answers at once. The answer is the same page either way.
 *
 * The trigram index also moves to the search text with its punctuation read as letters (`herald_search_key`): the
 * trigram extension splits text into words at every character that is not a letter or a digit, so `liam.g` asked
 * the old index for every entry holding the word `liam` (9,069 on the bench account, `william` too), each then read
 * to check the whole term; with `.` read as a letter its trigrams (`iam`, `amq`, `mqg`) hold the dot, and the index
 * gives the 1,615 entries that match. Every entry the old text matches, the key matches too, so the index still finds
 * every match; `search like` checks each. The index keeps its name (the import's fill cleans its pending list).
 */

/** How many of the newest entries the first walk reads, and how many the longest walk reads in all. */
const sample = 2000;
const longest = 20000;

/**
 * The search function's body: `adaptive` is this migration's (a first walk of `sample` entries, then the rest of
 * `longest` only when the first promises a page); without it, 0037's single walk of `longest`. `shortTermsScan` is
 * migration 0058's: a term too short for a trigram takes its candidates from a plain scan, not the index. `walker`
 * (migration 0061) replaces the adaptive walks with its own, given its declarations and its statements.
 */
export function searchFunction(
  adaptive: boolean,
  shortTermsScan = false,
  walker?: { declare: string; walks: string },
) {
  /** The trigram index's condition: through the key (this migration) or the search text itself (0037's index). */
  const indexed = adaptive
    ? 'herald_search_key(s.search) like keyed and s.search like pattern'
    : 's.search like pattern';
  const walk = (limit: number, below: boolean, into: string, want: string) => `
      select array_agg(t.id order by t.id desc) into ${into} from (
        select r.person_id as id from (
          select s.person_id, s.search from people_search s
          where s.account_id = acc${below ? ' and s.person_id < edge' : ''}
          order by s.person_id desc limit ${limit}
        ) r
        where r.search like pattern
          and exists (select 1 from people p where p.account_id = acc and p.id = r.person_id and p.archived_at is null)
        order by r.person_id desc limit ${want}
      ) t;`;
  const walks = walker
    ? walker.walks
    : adaptive
      ? `
      -- The newest ${sample} entries: a page of a common term, or how common the term is.
      ${walk(sample, false, 'recent', 'want')}
      if coalesce(array_length(recent, 1), 0) >= want then
        return query select unnest(recent[off + 1 : off + lim]);
        return;
      end if;
      -- As common as a page in ${longest}: walk on from where the first walk ended.
      if coalesce(array_length(recent, 1), 0) * ${longest / sample} >= want then
        select s.person_id into edge from people_search s where s.account_id = acc
          order by s.person_id desc offset ${sample - 1} limit 1;
        if edge is not null then
          ${walk(longest - sample, true, 'more', 'want - coalesce(array_length(recent, 1), 0)')}
          recent := coalesce(recent, '{}') || coalesce(more, '{}');
          if coalesce(array_length(recent, 1), 0) >= want then
            return query select unnest(recent[off + 1 : off + lim]);
            return;
          end if;
        end if;
      end if;`
      : `
      -- Common terms: the newest ${longest} entries hold a full page, found by walking the primary key.
      ${walk(longest, false, 'recent', 'want')}
      if coalesce(array_length(recent, 1), 0) >= want then
        return query select unnest(recent[off + 1 : off + lim]);
        return;
      end if;`;
  return sql.raw(`
    create or replace function herald_search_people(term text, lim int, off int) returns setof bigint
    language plpgsql stable security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint := nullif(current_setting('herald.account_id', true), '')::bigint;
      pattern text := '%' || replace(replace(replace(lower(term), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%';
      want int := lim + off;
      recent bigint[];
      more bigint[];
      edge bigint;
      exact bigint;
      candidates bigint[];
      found bigint[];
      cap int := 2 * (lim + off) + 100;${walker ? walker.declare : ''}${
        adaptive
          ? `
      keyed text := herald_search_key(pattern);`
          : ''
      }
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
          where s.account_id = acc and ${indexed}
        ) u order by u.id desc limit lim offset off;
        return;
      end if;
      ${walks}
      -- Rarer terms: the trigram index finds the matches; the newest of them are checked against people for
      -- archived ones (checking every match cost more than finding them).${
        shortTermsScan
          ? `
      -- A term of one or two characters holds no trigram, so the index would hand over every entry of the account,
      -- each then sorted: the newest matches come from a plain scan of the entries instead.
      if length(term) < 3 then
        -- Sent only to a client that asks for debug messages (the tests, to see which way a term took).
        raise debug 'herald_search_people: short term, scanned';
        select array_agg(k.person_id order by k.person_id desc) into candidates from (
          select s.person_id from people_search s where s.account_id = acc and s.search like pattern
          order by s.person_id + 0 desc limit cap
        ) k;
      else`
          : ''
      }
      select array_agg(k.person_id order by k.person_id desc) into candidates from (
        select s.person_id from people_search s where s.account_id = acc and ${indexed}
        -- '+ 0': sorted, not walked backwards through the primary key, which the planner prefers under a limit and
        -- which reads every newer entry first (half a million of them after a big import of other names).
        order by s.person_id + 0 desc limit cap
      ) k;${shortTermsScan ? '\n      end if;' : ''}
      select array_agg(u.id order by u.id desc) into found from unnest(candidates) u (id)
        where exists (select 1 from people p where p.account_id = acc and p.id = u.id and p.archived_at is null);
      if coalesce(array_length(found, 1), 0) >= want or coalesce(array_length(candidates, 1), 0) < cap then
        return query select unnest(found[off + 1 : off + lim]);
        return;
      end if;
      -- Many archived people among the newest matches: check them all.
      return query select s.person_id from people_search s
        join people p on p.account_id = acc and p.id = s.person_id and p.archived_at is null
        where s.account_id = acc and ${indexed}
        order by s.person_id desc limit lim offset off;
    end $fn$`);
}

/** The characters the key reads as letters: those found in addresses and names. */
const punctuation = `.@-+_'`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function herald_search_key(search text) returns text
    language sql immutable parallel safe as $fn$
      select translate(search, ${sql.lit(punctuation)}, ${sql.lit('q'.repeat(punctuation.length))})
    $fn$;
    drop index people_search_trgm_idx;
    create index people_search_trgm_idx on people_search using gin (account_id, herald_search_key(search) gin_trgm_ops);
  `.execute(db);
  await searchFunction(true).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await searchFunction(false).execute(db);
  await sql`
    drop index people_search_trgm_idx;
    create index people_search_trgm_idx on people_search using gin (account_id, search gin_trgm_ops);
    drop function herald_search_key(text);
  `.execute(db);
}
