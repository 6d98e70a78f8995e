import type pg from 'pg';
import { sql } from 'kysely';
import type { Services } from '../../services.ts';
import { withAccountClient } from '../../db/tenancy.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';

/**
 * Blocks of search entries (migration 0061, docs/people.md, "Blocks of entries"): the account's entries cut by person
 * id into blocks of about `blockSize`, each sealed block summarised as the letter and digit pairs its entries hold, so
 * a search passes by the blocks that cannot hold its term.
 */
export const blockSize = 1024;
/** Blocks summarised in one statement (each a transaction of its own: a writer to one of them waits that long). */
const blocksAStatement = 16;
/** How long the job waits for the transactions older than its mark (holding a worker) before it leaves the rest to its next run. */
const olderTransactionsWaitMs = 10_000;

/** Queue the account's summary job (one waits per account, however often it is asked for), now or at `runAt`. */
export async function enqueuePeopleSearchBlocks(
  db: Services['db'],
  accountId: number,
  runAt?: Date,
): Promise<void> {
  await enqueueJob(
    db,
    'people-search-blocks',
    { accountId },
    { jobKey: `people-search-blocks:${accountId}`, runAt },
  );
}

export async function runPeopleSearchBlocks(services: Services, accountId: number): Promise<void> {
  if ((await summarisePeopleSearchBlocks(services.pool, accountId)) !== null) return;
  // Older transactions outlasted the wait: try again in half a minute rather than at the next sweep.
  await enqueuePeopleSearchBlocks(services.db, accountId, new Date(Date.now() + 30_000));
}

/**
 * Cut and summarise the account's blocks: those unknown below the newest, and the newest when it holds two blocks'
 * worth (all but its last `blockSize` or fewer are sealed). Answers the blocks summarised, or null when transactions
 * older than the mark were still running after the wait (the blocks stay walked; the next run goes on).
 */
export async function summarisePeopleSearchBlocks(
  pool: pg.Pool,
  accountId: number,
  waitMs = olderTransactionsWaitMs,
): Promise<number | null> {
  const marked = await withAccountClient(pool, accountId, (client) => markBlocks(client, accountId));
  if (marked === 0) return 0;
  if (!(await olderTransactionsEnded(pool, waitMs))) return null;
  let summarised = 0;
  let after = -2;
  for (;;) {
    const chosen = await withAccountClient(pool, accountId, async (client) => {
      const { rows } = await client.query<{ lo: string; hi: string }>(
        `select lo::text, hi::text from (
           select b.lo, b.stage, coalesce(lead(b.lo) over (order by b.lo), 9223372036854775807) as hi
           from people_search_blocks b where b.account_id = $1
         ) b where b.stage = 1 and b.lo > $2 order by b.lo limit $3`,
        [accountId, after, blocksAStatement],
      );
      return rows;
    });
    if (chosen.length === 0) return summarised;
    summarised += await withAccountClient(pool, accountId, async (client) => {
      // Written only where the block is still marked: a writer since the mark has made it unknown again.
      const { rowCount } = await client.query(
        `with locked as (
           -- In the order of their key, as the writers' trigger locks them: neither can deadlock the other.
           select b.lo from people_search_blocks b where b.account_id = $1 and b.lo = any($2::bigint[]) and b.stage = 1
           order by b.lo for update
         )
         update people_search_blocks b set stage = 2, bits = x.bits from (
           -- A block's entries through the primary key, one range each (a join let the planner scan the table).
           select c.lo, herald_search_bigrams(coalesce((
             select string_agg(s.search, ' ') from people_search s
             where s.account_id = $1 and s.person_id >= c.lo and s.person_id < c.hi
           ), '')) as bits
           from unnest($2::bigint[], $3::bigint[]) c (lo, hi)
           where c.lo in (select lo from locked)
         ) x
         where b.account_id = $1 and b.lo = x.lo and b.stage = 1`,
        [accountId, chosen.map((c) => c.lo), chosen.map((c) => c.hi)],
      );
      return rowCount ?? 0;
    });
    after = Number(chosen[chosen.length - 1]!.lo);
  }
}

/**
 * In one transaction: cut the unknown blocks into blocks of `blockSize` entries and mark them stage 1. The newest
 * block stays open (unknown) with its last `blockSize` or fewer entries. Answers how many blocks are marked.
 */
async function markBlocks(client: pg.PoolClient, accountId: number): Promise<number> {
  // A first cut reads every entry of the account (1.5M take a few seconds).
  await client.query("select set_config('statement_timeout', '600000', true)");
  // One summariser cuts an account's blocks at a time: two would cut the same stretch twice.
  await client.query(`select pg_advisory_xact_lock(hashtext('people-search-blocks'), $1::int)`, [
    accountId % 2147483647,
  ]);
  await client.query(
    `insert into people_search_blocks (account_id, lo, stage) values ($1, 0, 0) on conflict do nothing`,
    [accountId],
  );
  const { rows } = await client.query<{ lo: string; top: boolean; starts: string[] }>(
    `with blocks as (
       select b.lo, b.stage, coalesce(lead(b.lo) over (order by b.lo), 9223372036854775807) as hi
       from people_search_blocks b where b.account_id = $1
     ), entries as (
       select b.lo, b.hi = 9223372036854775807 as top, s.person_id,
         row_number() over (partition by b.lo order by s.person_id) - 1 as k
       from blocks b left join people_search s on s.account_id = $1 and s.person_id >= b.lo and s.person_id < b.hi
       where b.stage < 2
     )
     select lo::text, top, array_agg(person_id::text order by person_id) as starts
     from entries where k % $2 = 0 group by lo, top`,
    [accountId, blockSize],
  );
  const sealed: string[] = [];
  const open: string[] = [];
  for (const block of rows) {
    // Each start after the first is a new block; the block's own lo stays its first start (an empty block, whose
    // only start is null, is sealed as it is: it holds no pair).
    const starts = [block.lo, ...block.starts.slice(1)];
    if (!block.top) sealed.push(...starts);
    else if (starts.length >= 2) {
      sealed.push(...starts.slice(0, -1));
      open.push(starts[starts.length - 1]!);
    }
  }
  if (sealed.length === 0) return 0;
  // Locked in the order of their key, as the writers' trigger locks them.
  sealed.sort((a, b) => Number(a) - Number(b));
  await client.query(
    `insert into people_search_blocks (account_id, lo, stage) select $1, unnest($2::bigint[]), 1
     on conflict (account_id, lo) do update set stage = 1, bits = null`,
    [accountId, sealed],
  );
  await client.query(
    `insert into people_search_blocks (account_id, lo, stage) select $1, unnest($2::bigint[]), 0
     on conflict (account_id, lo) do nothing`,
    [accountId, open],
  );
  return sealed.length;
}

/**
 * Wait until every transaction that was running when the mark committed has ended. A writer that touched a block
 * before the mark found it unknown and left it alone; once it has ended, its entries are there to be read. Only a
 * transaction of this database can have written its entries, and only one that holds a transaction id has written
 * anything: those are the ones waited for. (The cluster-wide snapshot horizon also waited for every other database's
 * transactions, and on a shared server one long transaction elsewhere held the job for its whole wait.)
 */
async function olderTransactionsEnded(pool: pg.Pool, waitMs: number): Promise<boolean> {
  const { rows } = await pool.query<{ xids: string }>(
    `select coalesce(array_agg(backend_xid), '{}')::text as xids from pg_stat_activity
     where datname = current_database() and backend_xid is not null and pid <> pg_backend_pid()`,
  );
  const xids = rows[0]!.xids;
  if (xids === '{}') return true;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const { rows: now } = await pool.query<{ ended: boolean }>(
      `select not exists (
         select 1 from pg_stat_activity where datname = current_database() and backend_xid = any($1::xid[])
       ) as ended`,
      [xids],
    );
    if (now[0]!.ended) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Every ten minutes: queue the summary job of each account with blocks left unknown below its newest, or whose
 * newest block holds two blocks' worth of entries (new people since the last summary), or that has that many entries
 * and no blocks yet.
 */
export async function runPeopleSearchBlocksSweep(services: Services): Promise<number[]> {
  const { rows } = await sql<{ accountId: string }>`
    select a.id::text as "accountId" from accounts a
    cross join lateral (select max(b.lo) as top from people_search_blocks b where b.account_id = a.id) t
    where exists (select 1 from people_search_blocks b where b.account_id = a.id and b.stage < 2 and b.lo < t.top)
      or (select count(*) from (
            select 1 from people_search s where s.account_id = a.id and s.person_id >= coalesce(t.top, 0) limit ${2 * blockSize}
          ) z) >= ${2 * blockSize}`.execute(services.db);
  const accounts = rows.map((r) => Number(r.accountId));
  for (const accountId of accounts) await enqueuePeopleSearchBlocks(services.db, accountId);
  return accounts;
}
