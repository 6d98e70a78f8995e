import {
  BroadcastTime,
  broadcastMessages,
  broadcastStatusLabels,
  hasScopes,
  pausableBroadcastStatuses,
  sendTimeMessages,
  type BroadcastStatus,
  type QuietHours,
  type QuietHoursBody,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { deliveryCountsOf, lockBroadcast, updateBroadcastRow } from '../broadcasts/broadcasts.queries.ts';
import { toBroadcast } from '../broadcasts/broadcasts.service.ts';
import { deliverJobKey } from '../deliveries/deliveries.service.ts';
import { findQuietHours, holdDeliveries, recipientWindow, releaseDeliveries, releaseQuietHeld, saveQuietHours, sendTimeSettings } from './send-times.queries.ts';

const hhmm = (time: string) => time.slice(0, 5);
const toQuietHours = (row: { quietHoursEnabled: boolean; quietHoursStart: string; quietHoursEnd: string }): QuietHours => ({
  enabled: row.quietHoursEnabled,
  start: hhmm(row.quietHoursStart),
  end: hhmm(row.quietHoursEnd),
});

/** GET /v1/settings/quiet-hours */
export async function getQuietHours(db: Database, session: Session) {
  return { quietHours: toQuietHours(await findQuietHours(db, session.accountId)) };
}

/** PUT /v1/settings/quiet-hours: account:write or emailSettings:write, as the other email settings. */
export async function putQuietHours(db: Database, session: Session, body: QuietHoursBody) {
  const member = { isOwner: session.isOwner, scopes: session.scopes };
  if (!hasScopes(member, ['account:write']) && !hasScopes(member, ['emailSettings:write'])) throw forbidden(sendTimeMessages.quietHoursForbidden);
  const before = toQuietHours(await findQuietHours(db, session.accountId));
  const quietHours = toQuietHours(await saveQuietHours(db, session.accountId, body));
  const window = (q: QuietHours) => (q.enabled ? `${q.start}-${q.end}` : 'off');
  // Mail the old window holds goes at its own time again (or now), moved only by the new window.
  if (window(before) !== window(quietHours)) {
    const released = await releaseQuietHeld(db, session.accountId, quietHours.enabled ? [quietHours.start, quietHours.end] : null);
    // Each job finds what is due now and schedules itself for the next row (runDeliver).
    for (const { kind, sourceId } of released) await enqueueJob(db, 'deliver', { accountId: session.accountId, kind, sourceId }, { jobKey: deliverJobKey(session.accountId, kind, sourceId), soonest: true });
  }
  return { quietHours, message: quietHours.enabled ? sendTimeMessages.quietHoursSaved : sendTimeMessages.quietHoursOff };
}

const isRecipientTime = (time: unknown) => {
  const parsed = BroadcastTime.safeParse(time);
  return parsed.success && parsed.data.type === 'recipient';
};

/**
 * When a broadcast's send starts and when it is due everywhere: sendAt for one time for everyone; for a send in
 * recipients' time zones, when UTC+14 and UTC−12 reach the local time. Both null for "send now"; a recipient-time
 * send without a time is a 400.
 */
export async function sendWindow(db: Database, accountId: number, row: { sendAt: Date | null; time: unknown }): Promise<{ startsAt: Date | null; endsAt: Date | null }> {
  if (!isRecipientTime(row.time)) return { startsAt: row.sendAt, endsAt: row.sendAt };
  if (!row.sendAt) throw badRequest(sendTimeMessages.recipientTimeNeedsTime);
  const { timeZone } = await sendTimeSettings(db, accountId);
  const window = await recipientWindow(db, timeZone, row.sendAt);
  return { startsAt: window.startsAt, endsAt: window.endsAt };
}

/** The sendAt whose local time a recipient-time broadcast's deliveries are queued at; null for other broadcasts. */
export const recipientSendAt = (row: { sendAt: Date | null; time: unknown }): Date | null => (isRecipientTime(row.time) ? row.sendAt : null);

async function lockPausable(db: Database, accountId: number, id: number) {
  const row = await lockBroadcast(db, accountId, id);
  if (!row) throw notFound(broadcastMessages.notFound);
  const status = row.status as BroadcastStatus;
  if (!pausableBroadcastStatuses.includes(status)) throw conflict(sendTimeMessages.notPausable(broadcastStatusLabels[status] ?? status), 'broadcastNotPausable');
  return row;
}

async function answer(db: Database, accountId: number, row: Parameters<typeof toBroadcast>[0], message: string) {
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
  await enqueueJob(db, 'deliver', { accountId, kind: 'broadcast', sourceId: id }, { jobKey: deliverJobKey(accountId, 'broadcast', id) });
  return answer(db, accountId, updated, sendTimeMessages.resumed);
}
