/**
 * The `start-broadcast` job: at the broadcast's time (or at once), queue one delivery per person of its
 * audience through the sending pipeline. Only this file of the feature knows the job queue.
 */
import { broadcastMessages } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import type { Services } from '../../services.ts';
import { enqueueDeliveries, sourceProgress } from '../deliveries/deliveries.service.ts';
import { recipientSendAt, sendWindow } from '../send-times/send-times.service.ts';
import { abTestOf } from './ab-tests.service.ts';
import { startAbTest } from './ab-tests.jobs.ts';
import { sendableAudience } from './broadcast-audience.ts';
import { failBroadcast, lockBroadcast, updateBroadcastRow } from './broadcasts.queries.ts';

/** One start job per broadcast: scheduling again replaces the job (graphile-worker's job key). */
export const startJobKey = (accountId: number, broadcastId: number) =>
  `start-broadcast:${accountId}:${broadcastId}`;

export async function scheduleStart(
  db: Database,
  accountId: number,
  broadcastId: number,
  runAt: Date,
): Promise<void> {
  await enqueueJob(
    db,
    'start-broadcast',
    { accountId, broadcastId },
    { jobKey: startJobKey(accountId, broadcastId), runAt },
  );
}

/**
 * Start a broadcast that is due. It does nothing for one canceled, archived or moved to a later time since the
 * job was queued, nor for one whose deliveries exist already (a job run twice). What changed since it was sent
 * (its email archived, a segment deleted, the sender no longer verified) fails it with the reason.
 */
export async function runStartBroadcast(
  services: Services,
  accountId: number,
  broadcastId: number,
): Promise<void> {
  await withAccount(services.db, accountId, async (db) => {
    await sql`select set_config('statement_timeout', '0', true)`.execute(db);
    const row = await lockBroadcast(db, accountId, broadcastId);
    if (!row || row.archived) return;
    if (row.status === 'scheduled') {
      const { startsAt } = row.sendAt ? await sendWindow(db, accountId, row) : { startsAt: null };
      if (startsAt && startsAt.getTime() > Date.now() + 1000) return;
      await updateBroadcastRow(db, accountId, broadcastId, {
        status: row.abTest ? 'ab-testing' : 'sending',
        startedAt: new Date(),
      });
    } else if (row.status !== 'sending' && row.status !== 'ab-testing') {
      return;
    }
    if ((await sourceProgress(db, accountId, 'broadcast', broadcastId)).total > 0) return;

    if (row.emailId === null) return failBroadcast(db, accountId, broadcastId, broadcastMessages.noEmail);
    const sendable = await sendableAudience(
      services.events,
      db,
      accountId,
      row.audience,
      Number(row.emailId),
      broadcastMessages.emailGone,
    );
    if ('failure' in sendable) return failBroadcast(db, accountId, broadcastId, sendable.failure);
    const { email, condition, category } = sendable;
    const abTest = abTestOf(row.abTest);
    if (abTest) {
      const started = await startAbTest(db, {
        accountId,
        broadcastId,
        test: abTest,
        emailId: Number(email.id),
        audience: condition,
        category,
        time: row.time,
      });
      if ('failure' in started) return failBroadcast(db, accountId, broadcastId, started.failure);
      return void (await updateBroadcastRow(db, accountId, broadcastId, {
        queued: started.queued,
        excluded: started.excluded,
        abTest: JSON.stringify(started.test),
      }));
    }
    const { queued, excluded } = await enqueueDeliveries(db, {
      accountId,
      kind: 'broadcast',
      sourceId: broadcastId,
      emailId: Number(email.id),
      category,
      audience: condition,
      recipientSendAt: recipientSendAt(row),
    });
    await updateBroadcastRow(db, accountId, broadcastId, { queued, excluded });
  });
}
