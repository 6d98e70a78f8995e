/**
 * The jobs of running flows. `advance-flow` (one job key per flow) executes the flow's due runs in batches and
 * schedules itself at the next wake time, so waits are wake times, not sleeping jobs: ten thousand runs waking at
 * the same minute are one job and a few batches. A sweeper restarts flows whose runs are overdue (their worker
 * died holding the job); `flow-webhook` posts the outbox of send-webhook steps; `flow-scheduled-triggers` runs the
 * time and date triggers every minute.
 */
import { sql } from 'kysely';
import { withAccount } from '../../db/tenancy.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { startPoller } from '../../jobs/poller.ts';
import type { Database } from '../../db/connection.ts';
import type { Services } from '../../services.ts';
import { deliverJobKey } from '../deliveries/deliveries.service.ts';
import { processBatch } from './flow-runs.service.ts';
import { nextWake, overdueFlows } from './flow-runs.queries.ts';
import { runScheduledTriggers } from './flow-triggers.service.ts';
import { sendWebhookCalls } from './flow-webhooks.service.ts';
import { convertFlowGoal } from './goals.queries.ts';
import { refreshBulkStatistics } from '../../db/statistics.ts';

/** Runs per batch (one transaction). */
const batchSize = 1000;
/** Batches in hand at once: one being advanced in Node while another is written by PostgreSQL. */
const loops = 2;
/** A job hands over to a fresh one after this long, so one big flow cannot hold a worker forever. */
const jobBudgetMs = 30_000;

export const advanceFlowJobKey = (accountId: number, flowId: number) => `advance-flow:${accountId}:${flowId}`;

/** Schedule the flow's job no later than `at` (now when absent). */
export function scheduleFlow(db: Database, accountId: number, flowId: number, at?: Date): Promise<void> {
  return enqueueJob(
    db,
    'advance-flow',
    { accountId, flowId },
    {
      jobKey: advanceFlowJobKey(accountId, flowId),
      soonest: true,
      maxAttempts: 25,
      ...(at ? { runAt: at } : {}),
    },
  );
}

/**
 * Wake a send step's `deliver` job after a batch queued its deliveries, unless one is already waiting or sending (a
 * running job claims rows queued while it runs, and reschedules itself for rows left when it ends). Waking it after
 * every batch would start a job beside the running one each time, and a hundred claimers would fight over the rows.
 * `always` (at the end of the flow's job) wakes it in any case, so rows queued in the instant a send job ended wait
 * for nobody.
 */
async function wakeDeliverJob(
  services: Services,
  accountId: number,
  stepId: number,
  always: boolean,
): Promise<void> {
  const key = deliverJobKey(accountId, 'flow', stepId);
  if (!always) {
    // A job waits to run, or one is sending now (rows under a live lease): nothing to do. A job locked by a worker
    // that died sends nothing, so it does not count.
    const { rows } = await sql<{ busy: boolean }>`
      select exists (select 1 from graphile_worker._private_jobs where key = ${key} and locked_at is null)
        or exists (select 1 from deliveries where account_id = ${accountId} and source_kind = 'flow' and source_id = ${stepId}
                   and status = 'sending' and lease_until > now()) as busy`.execute(services.db);
    if (rows[0]!.busy) return;
  }
  await withAccount(services.db, accountId, (db) =>
    enqueueJob(db, 'deliver', { accountId, kind: 'flow', sourceId: stepId }, { jobKey: key, soonest: true }),
  );
}

export async function runAdvanceFlow(
  services: Services,
  payload: { accountId: number; flowId: number },
  stopping?: AbortSignal,
): Promise<void> {
  const { accountId, flowId } = payload;
  const started = Date.now();
  let claimed = 0;
  const sendSteps = new Set<number>();
  await withAccount(services.db, accountId, (db) => convertFlowGoal(services.events, db, accountId, flowId));
  // Out of time or shutting down: the batches in hand finish, the rest waits for a fresh job.
  const isHandingOver = () => Date.now() - started >= jobBudgetMs || stopping?.aborted === true;
  const loop = async () => {
    while (!isHandingOver()) {
      await refreshBulkStatistics(services.db);
      const batch = await withAccount(services.db, accountId, (db) =>
        processBatch(services, db, accountId, flowId, batchSize),
      );
      claimed += batch.claimed;
      for (const stepId of batch.sendSteps) {
        sendSteps.add(stepId);
        await wakeDeliverJob(services, accountId, stepId, false);
      }
      if (batch.claimed === 0) return;
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
  for (const stepId of sendSteps) await wakeDeliverJob(services, accountId, stepId, true);
  await withAccount(services.db, accountId, async (db) => {
    const next = await nextWake(db, accountId, flowId);
    if (!next) return;
    const now = Date.now();
    // Runs due now that this job could not take are held by another worker: look again in a second.
    const at =
      next.getTime() > now
        ? next
        : new Date(
            now + ((claimed > 0 && Date.now() - started >= jobBudgetMs) || stopping?.aborted ? 0 : 1000),
          );
    await scheduleFlow(db, accountId, flowId, at);
  });
}

/** How often the sweeper looks, and how long a due run may wait before it counts as forgotten. */
const sweepMs = 5_000;
const graceSeconds = 10;

/**
 * Restart flows whose due runs nobody has taken for a while (a worker killed while holding the flow's job). The first
 * look, when the worker starts, restarts every flow with runs due now: a worker restarted after a crash goes on at once.
 */
export function startFlowSweeper(db: Database, onError: (error: unknown) => void): () => Promise<void> {
  const sweep = async (grace: number) => {
    for (const { accountId, flowId } of await overdueFlows(db, grace)) {
      await withAccount(db, accountId, (scoped) => scheduleFlow(scoped, accountId, flowId));
    }
  };
  const first = sweep(0).catch(onError);
  const stop = startPoller(() => sweep(graceSeconds), sweepMs, onError);
  return async () => {
    await first;
    await stop();
  };
}

export async function runFlowWebhooks(services: Services, payload: { accountId: number }): Promise<void> {
  const next = await sendWebhookCalls(services, payload.accountId);
  if (next) {
    await withAccount(services.db, payload.accountId, (db) =>
      enqueueJob(db, 'flow-webhook', payload, {
        jobKey: `flow-webhook:${payload.accountId}`,
        runAt: next,
        soonest: true,
      }),
    );
  }
}

export async function runFlowScheduledTriggers(services: Services): Promise<void> {
  await runScheduledTriggers(services);
}
