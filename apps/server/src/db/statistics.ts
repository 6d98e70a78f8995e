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
  looking = analyzeLagging(db)
    .then(() => undefined)
    .finally(() => {
      checkedAt = Date.now();
    });
  return looking;
}

/** Each table's count of inserted rows (`n_tup_ins`) when this process last analyzed it or began to watch it. */
const insertedAtLook = new Map<string, number>();

/**
 * The tables whose statistics lag behind: those with more rows inserted since this process last analyzed them (or
 * began to watch them) than a tenth of their size, at least 5,000. Updates do not count: a send updates each of its
 * rows twice (claimed, then sent) and a flow its runs, which changed the tables by a tenth every few seconds and had
 * `deliveries` analyzed every 5 s of a 100,000-message send (seven times, 2 s of the database's time in flow-100k),
 * while the claims' plans look rows up by id and by the claim index and need to know only that the rows are there.
 * Before the first analysis here, any change counts (PostgreSQL's `n_mod_since_analyze`), as rows may have come in
 * before this process started.
 */
export async function analyzeLagging(
  db: Database,
  tables: readonly string[] = bulkTables,
): Promise<string[]> {
  const { rows } = await sql<{ relname: string; inserted: string; live: string; changed: string }>`
    select relname, n_tup_ins as inserted, n_live_tup as live, n_mod_since_analyze as changed from pg_stat_user_tables
    where schemaname = 'public' and relname in (${sql.join(tables)})`.execute(db);
  const analyzed: string[] = [];
  for (const row of rows) {
    const inserted = Number(row.inserted);
    const threshold = Math.max(5000, Number(row.live) / 10);
    const before = insertedAtLook.get(row.relname);
    // Not watched yet, or the statistics were reset: the count starts here.
    const unwatched = before === undefined || inserted < before;
    const lagging = unwatched ? Number(row.changed) > threshold : inserted - before > threshold;
    if (lagging) {
      await sql`analyze ${sql.table(row.relname)}`.execute(db);
      analyzed.push(row.relname);
    }
    if (lagging || unwatched) insertedAtLook.set(row.relname, inserted);
  }
  return analyzed;
}
