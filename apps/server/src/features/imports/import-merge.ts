import type pg from 'pg';
import { holdSegmentRefreshes } from '../segments/membership.queries.ts';
import { recordTags, withAccountClient } from './import-parse.ts';
import { dropStagingTable, stagingTable } from './staging-table.ts';

const batchRows = 100_000;

/**
 * How a merge transaction runs. People's GIN indexes (trigram search, tags) take new entries into
 * their pending list and fold it into the index when it outgrows `gin_pending_list_limit` (4 MB by
 * default: hundreds of small folds for a million people). A bigger limit for the import's own
 * transactions folds in a few big sorted passes; `work_mem` is what a fold sorts in. The pending list
 * is emptied when the import ends (`cleanPendingLists`), so searches scan it only meanwhile.
 */
const mergeSettings =
  "select set_config('gin_pending_list_limit', '131072', true), set_config('work_mem', '131072', true), set_config('maintenance_work_mem', '262144', true), set_config('statement_timeout', '600000', true)," +
  // A batch touches a tenth of the people at most: reaching them by key beats hashing the whole table.
  // Never a scan of people either: planned while the account had few people (its first import), a
  // lookup per staged row that scans people grows with the rows the other connection adds meanwhile.
  " set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('enable_seqscan', 'off', true)," +
  // A batch's estimated cost sets off JIT compilation, about a second of it, and the compiled statement
  // ran slower: a 100,000-row batch alone took 8.8-9.4 s with JIT and 6.0-6.1 s without on the bench
  // machine; in the import, with two batches at a time, the batches took 11% less time in all.
  " set_config('jit', 'off', true)," +
  // Search entries of the people a batch writes are filled in bulk once the import is done (people-search-fill):
  // as index entries of every new row version they were about a third of the merge.
  " set_config('herald.search_deferred', 'on', true)";

/** Fold people's tags pending list into the index (owner rights; tag filters stop scanning the list). */
async function cleanPendingLists(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("set maintenance_work_mem = '256MB'; set statement_timeout = 600000");
    await client.query("select gin_clean_pending_list('people_tags_idx'::regclass)");
  } finally {
    await client.query('reset maintenance_work_mem; reset statement_timeout').catch(() => undefined);
    client.release();
  }
}

/** Ask for the search entries of the people the import wrote (people-search-fill), in the caller's transaction. */
async function enqueueSearchFill(client: pg.PoolClient, imp: { accountId: number; id: number }): Promise<void> {
  await client.query(
    `select herald_enqueue('people-search-fill', json_build_object('accountId', account_id, 'since', created_at), 'people-search-fill:' || account_id || ':' || id, null, 10)
     from imports where account_id = $1 and id = $2`,
    [imp.accountId, imp.id],
  );
}

/**
 * Keep only the last row of each email in the file (the others count as duplicates), in one pass over
 * the staged rows, in the transaction that ends the parse: a restart either redoes both or neither.
 */
export async function removeDuplicateRows(client: pg.PoolClient, imp: { accountId: number; id: number }): Promise<void> {
  // Hashed both ways whatever the statistics of the fresh staging rows say (a nested loop is quadratic here).
  await client.query("select set_config('work_mem', '262144', true), set_config('enable_nestloop', 'off', true)");
  await client.query(
    `with last as materialized (
       select email_lower, max(row_no) as keep from ${stagingTable(imp.id)}
       where account_id = $1 group by email_lower having count(*) > 1
     ), removed as (
       delete from ${stagingTable(imp.id)} r using last l
       where r.account_id = $1 and r.email_lower = l.email_lower and r.row_no < l.keep
       returning 1
     )
     update imports set duplicates = (select count(*) from removed) where account_id = $1 and id = $2`,
    [imp.accountId, imp.id],
  );
}

/**
 * The changes one batch makes (its emails are unique: duplicates left before the merge). Each row
 * finds its person through the email index once; 'update' fills the mapped fields of existing people
 * (an empty cell keeps the value) and adds tags, and writes only people it changes: one whose values
 * are all already there counts as skipped, like every existing person under 'ignore'. The statement's
 * CTEs share one snapshot, so the insert takes exactly the rows that found no person; `on conflict do
 * nothing` covers a person created by someone else meanwhile (counted as skipped).
 */
export function batchStatement(strategy: 'update' | 'ignore', importId: number): string {
  const update =
    strategy === 'ignore'
      ? 'updated as (select 1 where false)'
      : `updated as (
           update people p set
             first_name = coalesce(b.first_name, p.first_name), last_name = coalesce(b.last_name, p.last_name),
             phone = coalesce(b.phone, p.phone), company = coalesce(b.company, p.company),
             website = coalesce(b.website, p.website), external_id = coalesce(b.external_id, p.external_id),
             fields = p.fields || b.fields,
             tags = case when p.tags @> b.all_tags then p.tags else array(select distinct unnest(p.tags || b.all_tags)) end,
             updated_at = now()
           from batch b
           where p.account_id = $1 and p.id = b.person_id
             and ((b.first_name is not null and b.first_name is distinct from p.first_name)
               or (b.last_name is not null and b.last_name is distinct from p.last_name)
               or (b.phone is not null and b.phone is distinct from p.phone)
               or (b.company is not null and b.company is distinct from p.company)
               or (b.website is not null and b.website is distinct from p.website)
               or (b.external_id is not null and b.external_id is distinct from p.external_id)
               or p.fields || b.fields is distinct from p.fields
               or not p.tags @> b.all_tags)
           returning 1
         )`;
  return `with batch as materialized (
       select r.*, array(select distinct unnest(r.tags || $4::text[])) as all_tags,
         (select p.id from people p where p.account_id = $1 and p.email_key = r.email_lower) as person_id
       from ${stagingTable(importId)} r
       where r.account_id = $1 and r.row_no > $2 and r.row_no <= $3
     ), ${update}, created as (
       insert into people (account_id, email, first_name, last_name, phone, company, website, external_id, fields, tags)
       select $1, b.email, b.first_name, b.last_name, b.phone, b.company, b.website, b.external_id, b.fields, b.all_tags
       from batch b
       where b.person_id is null
       on conflict (account_id, email_key) where email_key is not null do nothing
       returning 1
     )
     select (select count(*)::int from batch) as batch,
            (select count(*)::int from created) as created,
            (select count(*)::int from updated) as updated`;
}

/** Connections merging batches at once: one core runs the statement, the other is free for the next. */
const mergeConnections = 2;

/**
 * Merge staged rows into people, one row range (batch) per statement, on `mergeConnections` connections
 * at once (a batch's emails are unique in the file, so batches touch different people). Each batch
 * commits with its counts and its entry in `import_merged_batches`, so a restarted job merges exactly
 * the batches not done yet; the staging table is dropped once the import is marked done.
 */
export async function mergeImport(
  pool: pg.Pool,
  imp: { accountId: number; id: number; totalRows: number; strategy: 'update' | 'ignore'; tags: string[] },
  onProgress: (merged: number) => void,
): Promise<void> {
  // Fresh staging rows have no statistics yet; a small sample is enough to plan batches by row range.
  await pool.query(`begin; set local default_statistics_target = 10; analyze ${stagingTable(imp.id)}; commit`);
  const statement = batchStatement(imp.strategy, imp.id);
  const done = await withAccountClient(pool, imp.accountId, async (client) => {
    const { rows } = await client.query<{ batchNo: number }>('select batch_no as "batchNo" from import_merged_batches where account_id = $1 and import_id = $2', [imp.accountId, imp.id]);
    return new Set(rows.map((r) => r.batchNo));
  });
  const remaining: number[] = [];
  for (let b = 0; b * batchRows < imp.totalRows; b += 1) if (!done.has(b)) remaining.push(b);

  const mergeBatch = async (b: number) => {
    const from = b * batchRows;
    const to = Math.min(from + batchRows, imp.totalRows);
    await withAccountClient(pool, imp.accountId, async (client) => {
      await client.query(mergeSettings);
      const { rows } = await client.query<{ batch: number; created: number; updated: number }>(statement, [imp.accountId, from, to, imp.tags]);
      const r = rows[0]!;
      await client.query('insert into import_merged_batches (account_id, import_id, batch_no) values ($1, $2, $3)', [imp.accountId, imp.id, b]);
      const { rows: merged } = await client.query<{ mergedRows: number }>(
        `update imports set merged_rows = merged_rows + $3, created = created + $4, updated = updated + $5, skipped = skipped + $6
         where account_id = $1 and id = $2 returning merged_rows as "mergedRows"`,
        [imp.accountId, imp.id, to - from, r.created, r.updated, r.batch - r.created - r.updated],
      );
      onProgress(merged[0]!.mergedRows);
    });
  };

  const release = await holdSegmentRefreshes(pool, imp.accountId);
  try {
    let next = 0;
    let failed = false;
    const lane = async () => {
      while (!failed && next < remaining.length) {
        const b = remaining[next++]!;
        try {
          await mergeBatch(b);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    // Both lanes finish (or fail) before the hold is released; the first failure is the job's.
    const results = await Promise.allSettled(Array.from({ length: Math.min(mergeConnections, remaining.length) }, lane));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    // The import finishes before the segment refreshes it held start over the same people.
    await cleanPendingLists(pool);
    await withAccountClient(pool, imp.accountId, async (client) => {
      // The file's own tags were recorded with each staged chunk; these are the ones picked for the import.
      await recordTags(client, imp.accountId, imp.tags);
      await client.query('delete from import_merged_batches where account_id = $1 and import_id = $2', [imp.accountId, imp.id]);
      await client.query("update imports set status = 'done', finished_at = now() where account_id = $1 and id = $2", [imp.accountId, imp.id]);
      await enqueueSearchFill(client, imp);
    });
    // Stopped before this, the table is dropped by the next import's sweep.
    await dropStagingTable(pool, imp.id);
  } catch (error) {
    // A failed merge still folds what it added to the tags pending list, and has the people it wrote indexed
    // for search (a retry that finishes the import asks for the same fill again; the second one finds it done).
    await cleanPendingLists(pool).catch(() => undefined);
    await withAccountClient(pool, imp.accountId, (client) => enqueueSearchFill(client, imp)).catch(() => undefined);
    throw error;
  } finally {
    await release();
  }
}
