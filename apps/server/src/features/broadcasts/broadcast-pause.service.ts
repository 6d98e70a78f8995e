import {
  broadcastMessages,
  broadcastStatusLabels,
  pausableBroadcastStatuses,
  sendTimeMessages,
  type BroadcastStatus,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { deliverJobKey } from '../../jobs/job-types.ts';
import { holdDeliveries, releaseDeliveries } from '../send-times/send-times.queries.ts';
import { deliveryCountsOf, lockBroadcast, updateBroadcastRow } from './broadcasts.queries.ts';
import { toBroadcast } from './broadcasts.service.ts';

// Pause and resume of a sending broadcast (send times, issue 17). Here in broadcasts, above send-times, whose
// queries hold and release the deliveries (docs/architecture.md).

async function lockPausable(db: Database, accountId: number, id: number) {
  const row = await lockBroadcast(db, accountId, id);
  if (!row) throw notFound(broadcastMessages.notFound);
  const status = row.status as BroadcastStatus;
  if (!pausableBroadcastStatuses.includes(status))
    throw conflict(
      sendTimeMessages.notPausable(broadcastStatusLabels[status] ?? status),
      'broadcastNotPausable',
    );
  return row;
}

async function answer(
  db: Database,
  accountId: number,
  row: Parameters<typeof toBroadcast>[0],
  message: string,
) {
  const counts = await deliveryCountsOf(db, accountId, [Number(row.id)]);
  return { item: toBroadcast(row, counts.get(Number(row.id))), message };
}

/** POST /v1/broadcasts/{id}/pause: pending deliveries are held (nothing more is claimed); those being sent finish. */
export async function pauseBroadcast(db: Database, session: Session, id: number) {
  const row = await lockPausable(db, session.accountId, id);
  if (row.pausedAt) throw conflict(sendTimeMessages.alreadyPaused, 'broadcastPaused');
  await holdDeliveries(db, session.accountId, id);
  const updated = await updateBroadcastRow(db, session.accountId, id, { pausedAt: new Date() });
  return answer(db, session.accountId, updated, sendTimeMessages.paused);
}

/** POST /v1/broadcasts/{id}/resume: held deliveries are pending again and the source's deliver job runs. */
export async function resumeBroadcast(db: Database, session: Session, id: number) {
  const { accountId } = session;
  const row = await lockPausable(db, accountId, id);
  if (!row.pausedAt) throw conflict(sendTimeMessages.notPaused, 'broadcastNotPaused');
  await releaseDeliveries(db, accountId, id);
  const updated = await updateBroadcastRow(db, accountId, id, { pausedAt: null });
  await enqueueJob(
    db,
    'deliver',
    { accountId, kind: 'broadcast', sourceId: id },
    { jobKey: deliverJobKey(accountId, 'broadcast', id) },
  );
  return answer(db, accountId, updated, sendTimeMessages.resumed);
}
