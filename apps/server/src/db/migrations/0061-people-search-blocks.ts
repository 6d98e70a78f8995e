import { sql, type Kysely } from 'kysely';
import { searchFunction } from './0054-people-search-sample.ts';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * People search skips the stretches of an account's entries that cannot hold the term (issue 56, docs/people.md,
 * "Blocks of entries"). Right after `import-1m` the newest half million entries were the file's people
 * (`imp-N@bench-import.example firstN lastN`), so a common term absent from them (`gmail.com`, `li`, `emma`) found
 * nothing in the first walks and went to the trigram index, which reads every match of the account (62,805 for
 * `gmail.com`, from every page of the table) to sort out the newest: 270-470 ms; a two-letter term scanned every
 * entry: 360 ms.
 *
 * Now the account's entries are cut, by person id, into blocks of about 1,024, and a sealed block keeps the set of
 * letter and digit pairs (bigrams) its entries' keys hold: 36 × 36 bits. An entry holding the term holds each of the
 * term's pairs, so a block that lacks one of them holds no match and the walks pass it by. Pairs, not the index's
 * trigrams, so that two-letter terms skip too. The walks go over the other blocks newest first; when they have read
 * every entry such a block holds, their page is the whole answer, with no index at all.
 *
 * A block's pairs are kept exact by its writers: every write to `people_search` marks the blocks it touched as
 * unknown (stage 0), and an unknown block is always walked. The newest block stays open (unknown) and takes the new
 * people. The `people-search-blocks` job cuts and summarises blocks (features/people/people-search-blocks.jobs.ts):
 * it marks the blocks it will summarise (stage 1) and commits, waits until every transaction older than that mark
 * has ended (a writer that saw a block unknown and so left it alone has then committed or rolled back), reads the
 * entries, and writes the pairs only where the block is still marked (stage 2). A writer after the mark sees stage 1
 * and sets it back to 0, so the summary never misses an entry.
 */

/** The pairs' alphabet: a key holds letters, digits and `q` for punctuation; anything else breaks a pair. */
const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
const bits = alphabet.length * alphabet.length;
const sample = 2000;
const longest = 20000;

/** Declarations the search function adds for the walks over blocks. */
export const declare = `
      mask bit(${bits}) := herald_search_bigrams(lower(term));
      budget int := ${sample};
      seen int := 0;
      run_seen int;
      run_found int;
      blk record;
      run_lo bigint;
      run_hi bigint;
      above bigint := 9223372036854775807;
      n int;
      ids bigint[];
      last_id bigint;`;

/**
 * The walks: the blocks newest first, read as they come (a common term needs only the newest few); a run of
 * neighbouring blocks that may hold the term (unknown, or holding each of its pairs) is walked when a block that cannot
 * ends it. The stretch below the lowest block is unknown, and a last row that cannot hold the term ends the last run.
 * The first ${sample} entries read either give a page or tell how common the term is among the blocks that may hold
 * it: a share in the run being walked that promises a page in ${longest} walks on, else the index answers (as the
 * walks of migration 0054 did over every entry).
 */
export const walks = `
      recent := '{}';
      <<blocks>>
      for blk in
        (select b.lo, (b.stage < 2 or b.bits & mask = mask) as maybe from people_search_blocks b
          where b.account_id = acc order by b.lo desc)
        union all select -1, true
        union all select -2, false
      loop
        if blk.maybe then
          if run_hi is null then
            run_hi := above;
            run_seen := 0;
            run_found := 0;
          end if;
          run_lo := blk.lo;
        elsif run_hi is not null then
          loop
            -- The run's next entries, newest first, until the page is full (as migration 0054's walks read them).
            select array_agg(w.id order by w.id desc) into ids from (
              select r.id from (
                select s.person_id as id, s.search from people_search s
                where s.account_id = acc and s.person_id >= run_lo and s.person_id < run_hi
                order by s.person_id desc limit budget - seen
              ) r
              where r.search like pattern
                and exists (select 1 from people p where p.account_id = acc and p.id = r.id and p.archived_at is null)
              order by r.id desc limit want - coalesce(array_length(recent, 1), 0)
            ) w;
            recent := recent || coalesce(ids, '{}');
            run_found := run_found + coalesce(array_length(ids, 1), 0);
            if coalesce(array_length(recent, 1), 0) >= want then
              return query select unnest(recent[off + 1 : off + lim]);
              return;
            end if;
            -- Short of a page: the walk read every entry it could in this run. How many, and where it stopped.
            select count(*)::int, min(k.id) into n, last_id from (
              select s.person_id as id from people_search s
              where s.account_id = acc and s.person_id >= run_lo and s.person_id < run_hi
              order by s.person_id desc limit budget - seen
            ) k;
            seen := seen + n;
            run_seen := run_seen + n;
            exit when seen < budget;
            -- The share in this run, not in all read: earlier runs may be blocks that could not be passed by (the open
            -- newest block: after an import, its people), which would make a term of 1-2% (lee after import-1m, 19,993
            -- matches) look rare and send it to the index (222 ms against about 10 ms for the rest of the walk).
            exit blocks when budget <> ${sample} or run_found * ${longest} < want * run_seen;
            run_hi := last_id;
            budget := ${longest};
          end loop;
          run_hi := null;
        end if;
        above := blk.lo;
        if blk.lo = -2 then
          -- Every entry that may hold the term was read: this is the whole answer.
          raise debug 'herald_search_people: walked every block that may hold the term (% entries)', seen;
          return query select unnest(recent[off + 1 : off + lim]);
          return;
        end if;
      end loop;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table people_search_blocks (
      account_id bigint not null references accounts (id) on delete cascade,
      -- The block holds the account's entries from this person id up to the next block's lo (the newest: all after).
      lo bigint not null,
      -- 0: unknown (walked), 1: being summarised (walked), 2: summarised (bits hold every pair of its entries' keys).
      stage smallint not null default 0,
      bits bit(${sql.raw(String(bits))}),
      primary key (account_id, lo)
    );

    -- The letter and digit pairs of a text's search key, as bits (pair "xy" at 36 × x + y). Runs of anything else
    -- become spaces first, so every trigram the extension makes is of plain letters and digits and holds its pairs.
    create function herald_search_bigrams(search text) returns bit(${sql.raw(String(bits))})
    -- PL/pgSQL, so that a session plans its statement once (a SQL function with a query is planned at every call).
    language plpgsql immutable parallel safe set search_path = pg_catalog, public as $fn$
    begin
      return (
        select coalesce(bit_or(${sql.lit(`1${'0'.repeat(bits - 1)}`)}::bit(${sql.raw(String(bits))})
            >> ((strpos(${sql.lit(alphabet)}, substr(x.pair, 1, 1)) - 1) * ${sql.raw(String(alphabet.length))}
              + strpos(${sql.lit(alphabet)}, substr(x.pair, 2, 1)) - 1)),
          ${sql.lit('0'.repeat(bits))}::bit(${sql.raw(String(bits))}))
        from (
          select distinct substr(g.trigram, o, 2) as pair
          from unnest(show_trgm(regexp_replace(herald_search_key(search), '[^a-z0-9]+', ' ', 'g'))) g (trigram),
            generate_series(1, 2) o
        ) x
        where x.pair ~ '^[a-z0-9]{2}$'
      );
    end $fn$;

    -- A write to entries marks the blocks it touched as unknown (from the block of its lowest person to the block of
    -- its highest, per account). An unknown block is left alone, so writes to the open newest block take no lock.
    create function herald_people_search_blocks_touched() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      -- Rows are locked in the order of their key (the summary job's too), so that two writers never deadlock.
      update people_search_blocks b set stage = 0, bits = null from (
        select c.account_id, c.lo from people_search_blocks c
        join (select t.account_id, min(t.person_id) as first, max(t.person_id) as last from touched t group by t.account_id) t
          on c.account_id = t.account_id and c.stage <> 0 and c.lo <= t.last
            and c.lo >= (select coalesce(max(d.lo), -1) from people_search_blocks d where d.account_id = t.account_id and d.lo <= t.first)
        order by c.account_id, c.lo for update of c
      ) x
      where b.account_id = x.account_id and b.lo = x.lo and b.stage <> 0;
      return null;
    end $fn$;
    create trigger people_search_blocks_inserted after insert on people_search
      referencing new table as touched for each statement execute function herald_people_search_blocks_touched();
    create trigger people_search_blocks_updated after update on people_search
      referencing new table as touched for each statement execute function herald_people_search_blocks_touched();
  `.execute(db);
  await protectTenantTables(db, ['people_search_blocks']);
  await searchFunction(true, true, { declare, walks }).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await searchFunction(true, true).execute(db);
  await sql`
    drop trigger people_search_blocks_inserted on people_search;
    drop trigger people_search_blocks_updated on people_search;
    drop function herald_people_search_blocks_touched();
    drop function herald_search_bigrams(text);
    drop table people_search_blocks;
  `.execute(db);
}
