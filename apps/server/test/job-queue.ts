import type pg from 'pg';
import { until } from './until.ts';

interface Waiting {
  task: string;
  key: string | null;
  locked: boolean;
  attempts: number;
}

/**
 * Waits until graphile-worker (schema graphile_worker, src/jobs/runner.ts) has no job running and none due within
 * `dueWithin` ms (5 s unless told: the triggers enqueue some jobs a second ahead): every job is done, failed for good,
 * or set for later (a quiet hour, a decision's time). Whatever the queued work was going to do is done by then, so a
 * test can assert that something did NOT happen. `tasks` narrows it to those task names. Work that JS timers start
 * (the segment poller, the metrics rollup) is not a job: wait for its row instead.
 */
export async function queueDrained(
  pool: Pick<pg.Pool, 'query'>,
  options: { timeout?: number; tasks?: string[]; dueWithin?: number } = {},
): Promise<void> {
  let waiting: Waiting[] = [];
  await until(
    async () => {
      ({ rows: waiting } = await pool.query<Waiting>(
        `select task_identifier as task, key, locked_at is not null as locked, attempts
           from graphile_worker.jobs
          where (locked_at is not null or (attempts < max_attempts and run_at <= now() + $2 * interval '1 millisecond'))
            and ($1::text[] is null or task_identifier = any($1))
          order by id limit 10`,
        [options.tasks ?? null, options.dueWithin ?? 5_000],
      ));
      return waiting.length === 0;
    },
    {
      timeout: options.timeout ?? 30_000,
      message: () => `the job queue drained (still ${JSON.stringify(waiting)})`,
    },
  );
}
