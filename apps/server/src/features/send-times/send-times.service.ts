import {
  BroadcastTime,
  hasScopes,
  sendTimeMessages,
  type QuietHours,
  type QuietHoursBody,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest, forbidden } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { deliverJobKey } from '../../jobs/job-types.ts';
import {
  findQuietHours,
  recipientWindow,
  releaseQuietHeld,
  saveQuietHours,
  sendTimeSettings,
} from './send-times.queries.ts';

const hhmm = (time: string) => time.slice(0, 5);
const toQuietHours = (row: {
  quietHoursEnabled: boolean;
  quietHoursStart: string;
  quietHoursEnd: string;
}): QuietHours => ({
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
  if (!hasScopes(member, ['account:write']) && !hasScopes(member, ['emailSettings:write']))
    throw forbidden(sendTimeMessages.quietHoursForbidden);
  const before = toQuietHours(await findQuietHours(db, session.accountId));
  const quietHours = toQuietHours(await saveQuietHours(db, session.accountId, body));
  const window = (q: QuietHours) => (q.enabled ? `${q.start}-${q.end}` : 'off');
  // Mail the old window holds goes at its own time again (or now), moved only by the new window.
  if (window(before) !== window(quietHours)) {
    const released = await releaseQuietHeld(
      db,
      session.accountId,
      quietHours.enabled ? [quietHours.start, quietHours.end] : null,
    );
    // Each job finds what is due now and schedules itself for the next row (runDeliver).
    for (const { kind, sourceId } of released)
      await enqueueJob(
        db,
        'deliver',
        { accountId: session.accountId, kind, sourceId },
        { jobKey: deliverJobKey(session.accountId, kind, sourceId), soonest: true },
      );
  }
  return {
    quietHours,
    message: quietHours.enabled ? sendTimeMessages.quietHoursSaved : sendTimeMessages.quietHoursOff,
  };
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
export async function sendWindow(
  db: Database,
  accountId: number,
  row: { sendAt: Date | null; time: unknown },
): Promise<{ startsAt: Date | null; endsAt: Date | null }> {
  if (!isRecipientTime(row.time)) return { startsAt: row.sendAt, endsAt: row.sendAt };
  if (!row.sendAt) throw badRequest(sendTimeMessages.recipientTimeNeedsTime);
  const { timeZone } = await sendTimeSettings(db, accountId);
  const window = await recipientWindow(db, timeZone, row.sendAt);
  return { startsAt: window.startsAt, endsAt: window.endsAt };
}

/** The sendAt whose local time a recipient-time broadcast's deliveries are queued at; null for other broadcasts. */
export const recipientSendAt = (row: { sendAt: Date | null; time: unknown }): Date | null =>
  isRecipientTime(row.time) ? row.sendAt : null;
