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
  await sql`select graphile_worker.add_job(
    ${name}::text,
    ${JSON.stringify(payload)}::json,
    job_key => ${options.jobKey ?? null}::text,
    run_at => ${options.runAt ?? null}::timestamptz,
    max_attempts => ${options.maxAttempts ?? 10}::int
  )`.execute(db);
}
