import type pg from 'pg';

/** The job queue's jobs by state (graphile-worker's schema `graphile_worker`, runner.ts). */
export interface QueueDepth {
  /** Due now and not taken: what the workers have yet to start. */
  ready: number;
  /** Waiting for their run_at (retries, schedules, quiet hours). */
  scheduled: number;
  /** Taken by a worker. */
  running: number;
  /** Out of attempts: kept by graphile-worker, never run again. */
  failed: number;
}

/**
 * Count the queue's jobs, for the metrics server's `herald_job_queue_depth` (read at scrape time). One pass over the
 * jobs table, which holds only jobs not yet done (graphile-worker deletes a job when it completes).
 */
export async function queueDepth(pool: pg.Pool, timeoutMs: number): Promise<QueueDepth> {
  const { rows } = await pool.query<QueueDepth>({
    text: `select count(*) filter (where is_available and run_at <= now())::int as ready,
        count(*) filter (where is_available and run_at > now())::int as scheduled,
        count(*) filter (where locked_at is not null)::int as running,
        count(*) filter (where locked_at is null and attempts >= max_attempts)::int as failed
      from graphile_worker._private_jobs`,
    query_timeout: timeoutMs,
  } as pg.QueryConfig);
  return rows[0]!;
}
