import { run, runMigrations, type Runner } from 'graphile-worker';
import type pg from 'pg';
import type { Services } from '../services.ts';
import type { Mailer } from '../mail/mailer.ts';
import { buildTaskList } from './tasks.ts';

/** Install or upgrade graphile-worker's own schema; every role needs it to enqueue. */
export async function prepareJobQueue(pool: pg.Pool): Promise<void> {
  await runMigrations({ pgPool: pool, logger: quietLogger });
}

/** Start processing jobs in this process. */
export async function startWorker(
  pool: pg.Pool,
  services: Services & { mailer: Mailer },
  concurrency: number,
): Promise<Runner> {
  return run({
    pgPool: pool,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: buildTaskList(services),
    logger: quietLogger,
  });
}

import { Logger } from 'graphile-worker';
/** graphile-worker logs each job at info; keep warnings and errors. */
const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') console.error(`[jobs] ${message}`);
});
