import { run, runMigrations, type Runner, type TaskList } from 'graphile-worker';
import type pg from 'pg';

/** Install or upgrade graphile-worker's own schema; every role needs it to enqueue. */
export async function prepareJobQueue(pool: pg.Pool): Promise<void> {
  await runMigrations({ pgPool: pool, logger: quietLogger });
}

/** What a worker runs; the composition root (app/worker.ts) fills it in, so this toolkit imports no feature. */
export interface WorkerParts {
  concurrency: number;
  taskList: TaskList;
  /** graphile-worker's crontab: jobs queued on a schedule. */
  crontab: string;
  /** Start the loops that run beside the jobs (pollers, sweepers), once the runner runs; returns their stops, called in order. */
  startLoops(): Array<() => Promise<void>>;
}

/** Start processing jobs in this process. */
export async function runWorker(pool: pg.Pool, parts: WorkerParts): Promise<Runner> {
  const runner = await run({
    pgPool: pool,
    concurrency: parts.concurrency,
    noHandleSignals: true,
    // A shutdown tells the running jobs at once (their abort signal): the long ones stop claiming and hand back.
    gracefulShutdownAbortTimeout: 0,
    pollInterval: 1000,
    taskList: parts.taskList,
    crontab: parts.crontab,
    logger: quietLogger,
  });
  const stopLoops = parts.startLoops();
  const stopRunner = runner.stop.bind(runner);
  // Stopping twice (a SIGTERM during a shutdown already under way) waits for the same stop.
  let stopping: Promise<void> | undefined;
  runner.stop = () =>
    (stopping ??= (async () => {
      for (const stop of stopLoops) await stop();
      await stopRunner();
    })());
  return runner;
}

import { Logger } from 'graphile-worker';
/** graphile-worker logs each job at info; keep warnings and errors. */
const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') console.error(`[jobs] ${message}`);
});
