import type { Runner } from 'graphile-worker';
import type pg from 'pg';
import { startDeliveriesSweeper } from '../features/deliveries/deliveries.jobs.ts';
import { senderPoolFor } from '../features/deliveries/sender-pool.ts';
import { startFlowSweeper } from '../features/flows/flows.jobs.ts';
import { startImportsSweeper } from '../features/imports/imports.jobs.ts';
import { startMetricsRollup } from '../features/metrics/metrics.jobs.ts';
import { startDirtyPoller } from '../features/segments/segments.jobs.ts';
import { runWorker } from '../jobs/runner.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Services } from '../services.ts';
import { connectFeatures } from './connect-features.ts';
import { buildTaskList } from './tasks.ts';

// Segments whose answer moves with time ("in the last 30 days") are rebuilt every 10 minutes.
// Flows' time and date triggers are looked at every minute.
// Blocks of search entries left unknown are summarised every ten minutes (features/people/people-search-blocks.jobs.ts).
// Trials that ended and people limits are looked at every five minutes (features/billing/billing.jobs.ts).
const crontab =
  '*/10 * * * * refresh-time-relative-segments ?max=1\n* * * * * flow-scheduled-triggers ?max=1\n*/5 * * * * billing-sweep ?max=1\n*/10 * * * * people-search-blocks-sweep ?max=1\n17 3 * * * prune-audit-log ?max=1\n47 3 * * * prune-events ?max=1';

/** Start processing jobs in this process: every feature's job handlers, its schedules and the loops beside them (jobs/runner.ts runs them). */
export async function startWorker(
  pool: pg.Pool,
  services: Services & { mailer: Mailer },
  concurrency: number,
): Promise<Runner> {
  connectFeatures();
  return runWorker(pool, {
    concurrency,
    taskList: buildTaskList(services),
    crontab,
    startLoops: () => {
      // Changes marked by the segment triggers are picked up within half a second (every two while they stream in).
      const stopPoller = startDirtyPoller(services.db, (error) =>
        console.error('[jobs] segment poller:', error),
      );
      // Sends whose worker died are picked up again every ten seconds.
      const stopSweeper = startDeliveriesSweeper(services.db, services.config.dataDir, (error) =>
        console.error('[jobs] deliveries sweeper:', error),
      );
      // Email events queued for the metrics rollups are added every two seconds.
      const stopRollup = startMetricsRollup(services.db, (error) =>
        console.error('[jobs] metrics rollup:', error),
      );
      // Flows whose due runs no worker has taken (their worker died) are restarted every five seconds.
      const stopFlowSweeper = startFlowSweeper(services.db, (error) =>
        console.error('[jobs] flow sweeper:', error),
      );
      // Imports whose worker died (their job locked for hours) get a fresh job every five seconds.
      const stopImportsSweeper = startImportsSweeper(services.db, pool, (error) =>
        console.error('[jobs] imports sweeper:', error),
      );
      // The sender threads start now, not on the first send.
      void senderPoolFor(services.config, services.secret, services.db)
        .warm()
        .catch((error: unknown) => console.error('[jobs] sender threads:', error));
      return [stopPoller, stopSweeper, stopRollup, stopFlowSweeper, stopImportsSweeper];
    },
  });
}
