import { sql } from 'kysely';
import type { Database } from './connection.ts';

/** How often a worker looks whether the statistics of the tables bulk work fills lag behind. */
const checkEveryMs = 5_000;
let checkedAt = 0;
let looking: Promise<void> = Promise.resolve();

/**
 * The tables one statement can fill with an account's worth of rows: a segment entry's runs, a send's deliveries.
 * People are left to autovacuum: analyzed here as they grew, they left statistics by which an import into a new
 * account, filling it between two looks, planned its merges badly (each merge read the account's people for each row).
 */
const bulkTables = ['flow_runs', 'flow_run_steps', 'deliveries'] as const;

/**
 * Analyze the bulk tables that changed a lot since their last analysis. A segment entry adds 100,000 runs to an
 * account in one statement, and a broadcast queues 100,000 deliveries in another; until autovacuum's next analysis
 * (up to minutes later, never where it is off) the planner believes the account has none of them, and scans every
 * row of the account for each claimed batch instead of looking its rows up by id: a send's database work then grows
 * with the square of its size. Looked at once every few seconds per process, whoever asks.
 */
export function refreshBulkStatistics(db: Database): Promise<void> {
  // Callers that come while a look is under way wait for it: their claims need the statistics it brings. A look that
  // failed fails its own caller only.
  if (Date.now() - checkedAt < checkEveryMs) return looking.catch(() => undefined);
  checkedAt = Date.now();
  looking = analyzeLagging(db).finally(() => {
    checkedAt = Date.now();
  });
  return looking;
}

async function analyzeLagging(db: Database): Promise<void> {
  const { rows } = await sql<{ relname: string }>`
    select relname from pg_stat_user_tables
    where schemaname = 'public' and relname in (${sql.join(bulkTables)})
      and n_mod_since_analyze > greatest(5000, n_live_tup / 10)`.execute(db);
  for (const { relname } of rows) await sql`analyze ${sql.table(relname)}`.execute(db);
}
