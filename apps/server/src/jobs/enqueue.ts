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
  options: { jobKey?: string; runAt?: Date; maxAttempts?: number } = {},
): Promise<void> {
  // herald_enqueue (migration 0002) calls graphile_worker.add_job with the owner's rights.
  await sql`select herald_enqueue(
    ${name}::text,
    ${JSON.stringify(payload)}::json,
    ${options.jobKey ?? null}::text,
    ${options.runAt ?? null}::timestamptz,
    ${options.maxAttempts ?? 10}::int
  )`.execute(db);
}
