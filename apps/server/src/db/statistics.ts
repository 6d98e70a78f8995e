import { sql } from 'kysely';
import type { Database } from './connection.ts';

/** How often a worker looks whether the statistics of the tables bulk work fills lag behind. */
const checkEveryMs = 5_000;
let checkedAt = 0;
let looking: Promise<void> = Promise.resolve();

/**
 * The tables one statement can fill with an account's worth of rows: an import's people, a segment entry's runs, a
 * send's deliveries.
 */
const bulkTables = ['people', 'flow_runs', 'flow_run_steps', 'deliveries'] as const;

/**
 * Analyze the bulk tables that changed a lot since their last analysis. A segment entry adds 100,000 runs to an
 * account in one statement, and a broadcast queues 100,000 deliveries in another; until autovacuum's next analysis
 * (up to minutes later, never where it is off) the planner believes the account has none of them, and scans every
 * row of the account for each claimed batch instead of looking its rows up by id: a send's database work then grows
 * with the square of its size. The same holds for an account whose people were just imported: a send's lookup of its
 * people by id scanned the account's people for each row (a 500-row batch took 20 s with 100,000 people). Looked at
 * once every few seconds per process, whoever asks; `now` looks at once.
 */
export function refreshBulkStatistics(db: Database, now = false): Promise<void> {
  // Callers that come while a look is under way wait for it: their claims need the statistics it brings. A look that
  // failed fails its own caller only.
  if (!now && Date.now() - checkedAt < checkEveryMs) return looking.catch(() => undefined);
  checkedAt = Date.now();
  looking = analyzeLagging(db).finally(() => {
    checkedAt = Date.now();
  });
  return looking;
}

async function analyzeLagging(db: Database): Promise<void> {
  // People count once they have grown: what their updates change (tags, fields) does not move a plan, and analyzing
  // them after each flow's tag step cost half a second of PostgreSQL's time.
  const { rows } = await sql<{ relname: string }>`
    select s.relname from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = 'public' and s.relname in (${sql.join(bulkTables)})
      and case when s.relname = 'people' then s.n_live_tup - greatest(c.reltuples, 0) > greatest(5000, c.reltuples / 10)
        else s.n_mod_since_analyze > greatest(5000, s.n_live_tup / 10) end`.execute(db);
  for (const { relname } of rows) await sql`analyze ${sql.table(relname)}`.execute(db);
}
