import { sql } from 'kysely';
import type { Database } from '../db/connection.ts';
import type { JobName, JobPayloads } from './job-types.ts';

/**
 * Add a job in the caller's transaction (graphile-worker's add_job), so the job exists exactly when
 * the change that asked for it is committed.
 */
export async function enqueueJob<N extends JobName>(
  db: Database,
  name: N,
  payload: JobPayloads[N],
  /** soonest (with a jobKey): never later than the waiting job of that key (herald_enqueue_soonest, migration 0024). */
  options: { jobKey?: string; runAt?: Date; maxAttempts?: number; soonest?: boolean } = {},
): Promise<void> {
  // herald_enqueue (migration 0002) calls graphile_worker.add_job with the owner's rights.
  const add = options.soonest && options.jobKey ? sql`herald_enqueue_soonest` : sql`herald_enqueue`;
  await sql`select ${add}(
    ${name}::text,
    ${JSON.stringify(payload)}::json,
    ${options.jobKey ?? null}::text,
    ${options.runAt ?? null}::timestamptz,
    ${options.maxAttempts ?? 10}::int
  )`.execute(db);
}
