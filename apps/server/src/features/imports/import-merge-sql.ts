import { stagingTable } from './staging-table.ts';

/**
 * How a merge transaction runs. People's tags GIN index takes new entries into its pending list and folds it into
 * the index when it outgrows `gin_pending_list_limit` (4 MB by default: hundreds of small folds for a million
 * people). A bigger limit for the import's own transactions folds in a few big sorted passes; `work_mem` is what a
 * fold sorts in. The pending list is emptied when the import ends, so tag filters scan it only meanwhile.
 */
export const mergeSettings =
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

/** What one batch's statement answers; `batchCounts` turns it into the import's counts. */
export type BatchRow = {
  batch: number;
  earlier: number;
  created: number;
  createdEarlier: number;
  updated: number;
};

/**
 * The counts of a batch (or of one round of it): a person's first row in the file counts the person as created,
 * updated (changed) or skipped; every later row of the same email is a duplicate. A later row whose person is gone
 * meanwhile creates it again and counts as created.
 */
export function batchCounts(r: BatchRow): {
  created: number;
  updated: number;
  skipped: number;
  duplicates: number;
} {
  const duplicates = r.earlier - r.createdEarlier;
  return {
    created: r.created,
    updated: r.updated,
    skipped: r.batch - duplicates - r.created - r.updated,
    duplicates,
  };
}

/**
 * The import's account (`$1` of its statements) where people are reached by key: as an init plan, which the planner
 * estimates as an average account (as `accountForIdLookup` in db/tenancy.ts does). With the account's own value,
 * statistics taken before it had people (a new install's first import, no autovacuum since) estimate it at one row,
 * and the planner read all the account's people for each staged row: through `people_created_idx` for the email
 * lookup, and as a materialized scan joined to the batch for the update. A 35,000-row import into a fresh database
 * took 8-11 s a batch of 10,000 that way.
 */
export const importAccount = '(select $1::bigint)';

/** A staged row's person, through the email index. */
const personOfRow = `(select p.id from people p where p.account_id = ${importAccount} and p.email_key = r.email_lower) as person_id`;

/**
 * The changes one batch (staged rows with `$2 < row_no <= $3`) makes. Each row finds its person through the email
 * index once; 'update' fills the mapped fields of existing people (an empty cell keeps the value) and adds tags,
 * and writes only people it changes: one whose values are all already there counts as skipped, like every existing
 * person under 'ignore'. The statement's CTEs share one snapshot, so the insert takes exactly the rows that found
 * no person; `on conflict do nothing` covers a person created by someone else meanwhile (counted as skipped).
 *
 * With `repeats` (the parse saw an email twice in this batch, or one an earlier batch had), the statement takes one
 * round `$5` of the batch: the `$5`-th row of each email in it, marked `earlier` when it is not the email's first
 * row in the file. Rounds run one after another in the batch's transaction, and batches merge in file order, so
 * the rows of an email apply in file order: a later value overwrites an earlier one, tags add up. Without
 * `repeats` the batch is taken whole, and the statement skips both checks.
 *
 * The update leaves out, before its join, the rows that found nobody: under statistics taken before the account had
 * people it may still compare each batch row with each of the account's people (see `importAccount`), but only the
 * rows of people who were there before (none in a new account's first import).
 */
export function batchStatement(strategy: 'update' | 'ignore', importId: number, repeats: boolean): string {
  const table = stagingTable(importId);
  const batch = repeats
    ? `rows_in as (
         select r.*, row_number() over (partition by r.email_lower order by r.row_no) as occurrence
         from ${table} r where r.account_id = $1 and r.row_no > $2 and r.row_no <= $3
       ), batch as materialized (
         select r.*, array(select distinct unnest(r.tags || $4::text[])) as all_tags,
           ${personOfRow},
           -- Hashed once for the batch: an array's estimate is small, so the planner never rescans it per row
           -- (a plain subquery of the earlier rows was planned as a rescan per row, quadratic in the file).
           (r.occurrence > 1 or r.email_lower in (select unnest(array(select e.email_lower from ${table} e where e.account_id = $1 and e.row_no <= $2)))) as earlier
         from rows_in r where r.occurrence = $5
       )`
    : `batch as materialized (
         select r.*, array(select distinct unnest(r.tags || $4::text[])) as all_tags,
           ${personOfRow},
           false as earlier
         from ${table} r
         where r.account_id = $1 and r.row_no > $2 and r.row_no <= $3
       )`;
  const update =
    strategy === 'ignore'
      ? 'updated as (select false as earlier where false)'
      : `updated as (
           update people p set
             first_name = coalesce(b.first_name, p.first_name), last_name = coalesce(b.last_name, p.last_name),
             phone = coalesce(b.phone, p.phone), company = coalesce(b.company, p.company),
             website = coalesce(b.website, p.website), external_id = coalesce(b.external_id, p.external_id),
             fields = p.fields || b.fields,
             tags = case when p.tags @> b.all_tags then p.tags else array(select distinct unnest(p.tags || b.all_tags)) end,
             updated_at = now()
           from batch b
           where b.person_id is not null and p.account_id = ${importAccount} and p.id = b.person_id
             and ((b.first_name is not null and b.first_name is distinct from p.first_name)
               or (b.last_name is not null and b.last_name is distinct from p.last_name)
               or (b.phone is not null and b.phone is distinct from p.phone)
               or (b.company is not null and b.company is distinct from p.company)
               or (b.website is not null and b.website is distinct from p.website)
               or (b.external_id is not null and b.external_id is distinct from p.external_id)
               or p.fields || b.fields is distinct from p.fields
               or not p.tags @> b.all_tags)
           returning b.earlier
         )`;
  return `with ${batch}, ${update}, created as (
       insert into people (account_id, email, first_name, last_name, phone, company, website, external_id, fields, tags)
       select $1, b.email, b.first_name, b.last_name, b.phone, b.company, b.website, b.external_id, b.fields, b.all_tags
       from batch b
       where b.person_id is null
       on conflict (account_id, email_key) where email_key is not null do nothing
       returning email_key
     )
     select (select count(*)::int from batch) as batch,
            ${repeats ? '(select count(*)::int from batch where earlier)' : '0'} as earlier,
            (select count(*)::int from created) as created,
            ${repeats ? '(select count(*)::int from created where email_key in (select unnest(array(select email_lower from batch where earlier))))' : '0'} as "createdEarlier",
            (select count(*)::int from updated where not earlier) as updated`;
}

/**
 * Rows of the file per staged chunk, which is also a merged batch: chunk b holds the rows numbered
 * (b × rows, (b + 1) × rows]. Tests make it small to cross batches with a few rows.
 */
export const importBatching = { rows: 100_000 };

/** A staged chunk ready to merge, with what the parse saw of its emails (both true when it could not tell). */
export type StagedBatch = {
  batch: number;
  from: number;
  to: number;
  repeatsInBatch: boolean;
  repeatsEarlier: boolean;
};
