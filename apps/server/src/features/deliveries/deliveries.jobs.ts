/**
 * The `deliver` job: send a source's queued deliveries. Loops claim batches under a lease and hand them to the
 * sender threads (sender-pool.ts), which render with packages/email, send through their pooled SMTP connections
 * and journal every message just before it is complete at the server; the loops record the outcomes in the
 * database as batches finish. When no row is left the broadcast is finished. Each content is made ready once
 * (prepared-content.ts); a batch's rows go to the threads through batch-send.ts.
 */
import { sendingMessages } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { refreshBulkStatistics } from '../../db/statistics.ts';
import { withAccount } from '../../db/tenancy.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { startPoller } from '../../jobs/poller.ts';
import type { Services } from '../../services.ts';
import { raiseAlert, resolveAlert } from '../integrations/alerts.ts';
import { sendRows, type Outcomes } from './batch-send.ts';
import {
  clearSendProblem,
  claimBatch,
  failSource,
  finishBroadcast,
  nextWork,
  noteSendProblem,
  recordFailed,
  recordSkipped,
  renewLeases,
  leaseSeconds,
  type ClaimedRow,
} from './deliveries.queries.ts';
import { deliverJobKey, type SourceKind } from './deliveries.service.ts';
import { HeldLeases } from './held-leases.ts';
import { newFence } from './lease-fence.ts';
import { contentKeyOf, prepareEmail, type Prepared } from './prepared-content.ts';
import { replayOrphanedJournals } from './sender-pool.ts';

/** Batches in hand per sender thread: some being sent while the next are claimed and recorded. */
const loopsPerThread = 4;
/** A job hands over to a fresh one after this long, so one big send cannot hold a worker forever. */
const jobBudgetMs = 60_000;
/** Failed attempts in a row after which the account gets an alert. */
const alertAfterFailures = 3;
const mailServerAlert = 'mail-server';

/**
 * Make a mail server that cannot be reached visible: a warn line with the cause at each failed attempt, the problem on
 * the source (the broadcast's status answer), an account alert from the third attempt in a row; all cleared by the
 * first message the server takes again.
 */
async function reportConnection(
  db: Database,
  source: { accountId: number; kind: SourceKind; sourceId: number },
  outcomes: Outcomes,
) {
  const { accountId, kind, sourceId } = source;
  if (outcomes.opening) {
    const message = outcomes.opening;
    await withAccount(db, accountId, async (scoped) => {
      const { failures, counted } = await noteSendProblem(scoped, accountId, kind, sourceId, message);
      if (!counted) return;
      console.warn(
        `[send] ${kind} ${sourceId} of account ${accountId} is held up (attempt ${failures}): ${message}`,
      );
      if (failures >= alertAfterFailures)
        await raiseAlert(scoped, accountId, mailServerAlert, sendingMessages.mailServerAlert(message));
    });
  } else if (outcomes.sent > 0) {
    await withAccount(db, accountId, async (scoped) => {
      const { cleared, othersLeft } = await clearSendProblem(scoped, accountId, kind, sourceId);
      if (cleared)
        console.warn(`[send] ${kind} ${sourceId} of account ${accountId} reaches the mail server again`);
      if (cleared && !othersLeft) await resolveAlert(scoped, accountId, mailServerAlert);
    });
  }
}

export async function runDeliver(
  services: Services,
  payload: { accountId: number; kind: SourceKind; sourceId: number },
  stopping?: AbortSignal,
): Promise<void> {
  const { accountId, kind, sourceId } = payload;
  const started = Date.now();
  const account = await services.db
    .selectFrom('accounts')
    .select(['name', 'mailingAddress', 'site', 'linkUtms', 'blocked'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) return;
  const again = (runAt: Date) =>
    withAccount(services.db, accountId, (db) =>
      enqueueJob(db, 'deliver', payload, { jobKey: deliverJobKey(accountId, kind, sourceId), runAt }),
    );
  // An account under review sends nothing: its mail waits.
  if (account.blocked) return again(new Date(Date.now() + 10 * 60_000));
  // What a worker that died on this machine sent is recorded before any of its rows can be claimed again.
  await replayOrphanedJournals(services.db, services.config.dataDir);
  const shown = { name: account.name, mailingAddress: account.mailingAddress, site: account.site };
  const contents = new Map<string, Prepared>();
  // Out of time or shutting down: the batches in hand are sent and recorded, the rest goes to a fresh job.
  const isHandingOver = () => Date.now() - started >= jobBudgetMs || stopping?.aborted === true;
  // The rows in hand, their leases renewed until their outcome is recorded: rows are claimed ahead of the sender
  // threads, and on a busy machine a batch can wait in a thread's queue past its first lease (another worker would
  // then claim and send it too). Only rows near the end of their lease are renewed (held-leases.ts).
  const renewEveryMs = (leaseSeconds * 1000) / 3;
  const held = new HeldLeases(leaseSeconds * 1000, renewEveryMs);
  const renewal = setInterval(() => {
    const now = Date.now();
    const due = held.due(now);
    if (due.size === 0) return;
    void withAccount(services.db, accountId, (db) => renewLeases(db, accountId, due))
      .then(({ lost }) => {
        const lostSet = new Set(lost);
        held.renewed(
          [...due.keys()].filter((id) => !lostSet.has(id)),
          now,
          due.keys(),
        );
        if (lost.length)
          console.warn(
            `[send] ${kind} ${sourceId} of account ${accountId}: ${lost.length} rows in hand were claimed again by another worker; they are left to it`,
          );
      })
      .catch(() => undefined);
  }, renewEveryMs);
  const loop = async () => {
    while (!isHandingOver()) {
      // A send just queued is in no statistics yet: the claim's plan needs it to be (db/statistics.ts).
      await refreshBulkStatistics(services.db);
      const claimedAt = Date.now();
      const rows = await withAccount(services.db, accountId, (db) =>
        claimBatch(db, accountId, kind, sourceId, services.config.sending.batchSize),
      );
      if (!rows.length) return;
      // The batch's fence, shared with the sender thread: no message starts past the lease (lease-fence.ts).
      const { fence, buffer } = newFence(claimedAt, leaseSeconds * 1000);
      held.hold(rows, claimedAt, fence);
      const byContent = new Map<string, ClaimedRow[]>();
      for (const row of rows)
        byContent.set(contentKeyOf(row), [...(byContent.get(contentKeyOf(row)) ?? []), row]);
      const outcomes: Outcomes = { failures: [], skipped: [], sent: 0, withdrawn: [], opening: null };
      for (const [key, contentRows] of byContent) {
        let prepared = contents.get(key);
        if (!prepared) {
          const { emailId, variant } = contentRows[0]!;
          prepared = await withAccount(services.db, accountId, (db) =>
            prepareEmail(
              services,
              db,
              { accountId, kind, sourceId, emailId, variant },
              shown,
              account.linkUtms,
            ),
          );
          contents.set(key, prepared);
        }
        await sendRows(services, prepared, contentRows, outcomes, buffer);
      }
      if (outcomes.failures.length || outcomes.skipped.length) {
        await withAccount(services.db, accountId, async (db) => {
          await recordFailed(db, accountId, outcomes.failures);
          await recordSkipped(
            db,
            accountId,
            outcomes.skipped,
            'No longer receives this mail (unsubscribed, suppressed, opted out or archived).',
          );
        });
      }
      // Withdrawn rows stay `sending` until their lease ends, then whoever claims them sends them.
      if (outcomes.withdrawn.length)
        console.warn(
          `[send] ${kind} ${sourceId} of account ${accountId}: ${outcomes.withdrawn.length} messages not started, their lease about to run out; they are sent again after it`,
        );
      held.release(rows.map((row) => row.id));
      await reportConnection(services.db, { accountId, kind, sourceId }, outcomes);
    }
  };
  try {
    await Promise.all(Array.from({ length: loopsPerThread * services.config.sending.threads }, loop));
  } finally {
    clearInterval(renewal);
  }
  const refused = [...contents.values()].find((p): p is { refused: string } => 'refused' in p);
  await withAccount(services.db, accountId, async (db) => {
    if (refused) await failSource(db, accountId, kind, sourceId, refused.refused);
    const next = isHandingOver() ? new Date() : await nextWork(db, accountId, kind, sourceId);
    if (next)
      await enqueueJob(db, 'deliver', payload, {
        jobKey: deliverJobKey(accountId, kind, sourceId),
        runAt: next,
        soonest: true,
      });
    else if (kind === 'broadcast') await finishBroadcast(db, accountId, sourceId);
  });
}

/** How often the sweeper looks for sends nobody is working on. */
const sweepMs = 10_000;

/**
 * A worker killed mid-send (SIGKILL, a crash, a lost machine) leaves its `deliver` job locked in the job queue
 * for hours. The sweeper starts a fresh job for every source that has work but no live worker: rows whose lease
 * ran out, or rows due for a minute with none being sent. A spare job at worst runs beside a live one, and the
 * claims (SKIP LOCKED) keep them apart. Its first look, when the worker starts, also starts a job for every source
 * with rows due now: a worker restarted after a crash sends on at once instead of after the dead one's leases.
 */
export function startDeliveriesSweeper(
  db: Database,
  dataDir: string,
  onError: (error: unknown) => void,
): () => Promise<void> {
  const sweep = async (atStart: boolean) => {
    await replayOrphanedJournals(db, dataDir);
    const { rows } = await sql<{ accountId: number; kind: SourceKind; sourceId: number }>`
      select account_id as "accountId", source_kind as kind, source_id as "sourceId" from deliveries
      where status in ('pending', 'sending')
      group by account_id, source_kind, source_id
      having bool_or(status = 'sending' and lease_until < now() - interval '5 seconds')
        or (bool_or(status = 'pending' and not_before < now() - interval '60 seconds') and not bool_or(status = 'sending'))
        or (${atStart} and bool_or(status = 'pending' and not_before <= now()))
      limit 100
    `.execute(db);
    for (const row of rows) {
      const payload = { accountId: Number(row.accountId), kind: row.kind, sourceId: Number(row.sourceId) };
      await withAccount(db, payload.accountId, (scoped) =>
        enqueueJob(scoped, 'deliver', payload, {
          jobKey: deliverJobKey(payload.accountId, payload.kind, payload.sourceId),
        }),
      );
    }
  };
  const first = sweep(true).catch(onError);
  const stop = startPoller(() => sweep(false), sweepMs, onError);
  return async () => {
    await first;
    await stop();
  };
}
