import {
  Audience,
  bodyIdMismatch,
  BroadcastTime,
  broadcastMessages,
  broadcastStatusLabels,
  cancelableBroadcastStatuses,
  emailMessages,
  isBroadcastEditable,
  segmentMessages,
  type AudienceCount,
  type Broadcast,
  type BroadcastStatus,
  type CreateBroadcastBody,
  type UpdateBroadcastBody,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { cancelDeliveries, countAudience, sourceProgress } from '../deliveries/deliveries.service.ts';
import { findFolder, setChildren, type ChildRef } from '../folders/folders.queries.ts';
import { sendWindow } from '../send-times/send-times.service.ts';
import { assertMaySendFrom } from '../senders/sending-rule.ts';
import { removeDecision } from './ab-tests.jobs.ts';
import {
  abTestColumn,
  abTestOf,
  abTestResults,
  checkAbTestSend,
  checkVariantEmails,
  copiedAbTest,
} from './ab-tests.service.ts';
import { assertAudience, audienceCondition, categoryOfEmail } from './broadcast-audience.ts';
import type { EventStore } from '../../db/event-store.ts';
import { scheduleStart } from './broadcasts.jobs.ts';
import {
  activeEmail,
  deliveryCountsOf,
  findBroadcast,
  insertBroadcast,
  listBroadcasts,
  lockBroadcast,
  updateBroadcastRow,
  type BroadcastChanges,
  type BroadcastRow,
  type DeliveryCounts,
} from './broadcasts.queries.ts';

const noDeliveries: DeliveryCounts = { pending: 0, sending: 0, sent: 0, failed: 0, canceled: 0, paused: 0 };
const iso = (date: Date | null) => (date ? date.toISOString() : null);
const label = (status: string) => broadcastStatusLabels[status as BroadcastStatus] ?? status;

/** The entity the API answers with; stats are live from the delivery rows. */
export function toBroadcast(row: BroadcastRow, counts: DeliveryCounts = noDeliveries): Broadcast {
  const audience = Audience.safeParse(row.audience);
  const time = BroadcastTime.safeParse(row.time);
  return {
    id: Number(row.id),
    name: row.name,
    status: row.status as BroadcastStatus,
    emailId: row.emailId === null ? null : Number(row.emailId),
    sendAt: iso(row.sendAt),
    time: time.success ? time.data : null,
    createdBy: row.createdBy === null ? null : Number(row.createdBy),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    integrationId: row.integrationId,
    audience: audience.success ? audience.data : { type: 'all' },
    stats: {
      queued: row.queued,
      excluded: row.excluded,
      sent: counts.sent,
      failed: counts.failed,
      pending: counts.pending + counts.sending + counts.paused,
    },
    failure: row.failure,
    startedAt: iso(row.startedAt),
    finishedAt: iso(row.finishedAt),
    archived: row.archived,
    pausedAt: iso(row.pausedAt),
    abTest: abTestOf(row.abTest),
  };
}

async function withStats(db: Database, accountId: number, row: BroadcastRow): Promise<Broadcast> {
  const counts = await deliveryCountsOf(db, accountId, [Number(row.id)]);
  return toBroadcast(row, counts.get(Number(row.id)));
}

async function broadcastOrThrow(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<BroadcastRow> {
  const row = lock ? await lockBroadcast(db, accountId, id) : await findBroadcast(db, accountId, id);
  if (!row) throw notFound(broadcastMessages.notFound);
  return row;
}

/** GET /v1/broadcasts: active broadcasts (or archived ones, or both) with their live figures. */
export async function getBroadcasts(
  db: Database,
  session: Session,
  archived: 'true' | 'false' | 'all' | undefined,
) {
  const rows = await listBroadcasts(db, session.accountId, archived === 'all' ? 'all' : archived === 'true');
  const counts = await deliveryCountsOf(
    db,
    session.accountId,
    rows.map((row) => Number(row.id)),
  );
  return { items: rows.map((row) => toBroadcast(row, counts.get(Number(row.id)))) };
}

export async function getBroadcast(db: Database, session: Session, id: number) {
  return { item: await withStats(db, session.accountId, await broadcastOrThrow(db, session.accountId, id)) };
}

/** An email chosen for a broadcast must exist and not be archived. */
async function checkEmail(db: Database, accountId: number, emailId: number | null | undefined) {
  if (emailId && !(await activeEmail(db, accountId, emailId))) throw badRequest(emailMessages.notFound);
}

/** Segments named by an audience must exist. */
async function checkAudience(db: Database, accountId: number, audience: Audience | undefined) {
  if (audience) await assertAudience(db, accountId, audience, segmentMessages.unknownSegment);
}

/** File a broadcast in a folder of broadcasts. */
async function fileInFolder(db: Database, accountId: number, folderId: number, id: number): Promise<void> {
  const folder = await findFolder(db, accountId, folderId);
  if (!folder || folder.folderType !== 'broadcasts') throw badRequest('Choose a folder of broadcasts.');
  const children = folder.children as unknown as ChildRef[];
  await setChildren(db, accountId, folder.id, [...children, { type: 'item', id }]);
}

/** POST /v1/broadcasts: a draft; an empty name is 'My Broadcast'. */
export async function createBroadcast(db: Database, session: Session, body: CreateBroadcastBody) {
  await checkEmail(db, session.accountId, body.emailId);
  await checkAudience(db, session.accountId, body.audience);
  await checkVariantEmails(db, session.accountId, body.abTest);
  const row = await insertBroadcast(db, {
    accountId: session.accountId,
    name: body.name || broadcastMessages.defaultName,
    emailId: body.emailId ?? null,
    audience: JSON.stringify(body.audience ?? { type: 'all' }),
    sendAt: body.sendAt ? new Date(body.sendAt) : null,
    time: body.time ? JSON.stringify(body.time) : null,
    createdBy: session.teamMemberId,
    abTest: abTestColumn(body.abTest) ?? null,
  });
  if (body.folderId) await fileInFolder(db, session.accountId, body.folderId, Number(row.id));
  return { item: toBroadcast(row) };
}

function assertFuture(sendAt: Date) {
  if (sendAt.getTime() <= Date.now()) throw badRequest(broadcastMessages.sendAtInPast);
}

/**
 * PATCH /v1/broadcasts/{id}: only draft and scheduled broadcasts change (409 otherwise). A scheduled one
 * moved to another future time is scheduled again at it; clearing its time makes it a draft again.
 */
export async function updateBroadcast(db: Database, session: Session, id: number, body: UpdateBroadcastBody) {
  if (body.id !== undefined && body.id !== id) throw badRequest(bodyIdMismatch('broadcast'));
  const current = await broadcastOrThrow(db, session.accountId, id, true);
  if (!isBroadcastEditable(current.status as BroadcastStatus))
    throw conflict(broadcastMessages.notEditable(label(current.status)), 'broadcastNotEditable');
  await checkEmail(db, session.accountId, body.emailId);
  await checkAudience(db, session.accountId, body.audience);
  await checkVariantEmails(db, session.accountId, body.abTest);
  const changes: BroadcastChanges = {
    ...(body.name !== undefined ? { name: body.name || broadcastMessages.defaultName } : {}),
    ...(body.emailId !== undefined ? { emailId: body.emailId } : {}),
    ...(body.audience !== undefined ? { audience: JSON.stringify(body.audience) } : {}),
    ...(body.time !== undefined ? { time: body.time ? JSON.stringify(body.time) : null } : {}),
    ...(body.abTest !== undefined ? { abTest: abTestColumn(body.abTest) } : {}),
  };
  const sendAt = body.sendAt === undefined ? undefined : body.sendAt === null ? null : new Date(body.sendAt);
  if (sendAt !== undefined) changes.sendAt = sendAt;
  const retimed = body.time !== undefined && JSON.stringify(body.time) !== JSON.stringify(current.time);
  const moved =
    retimed || (sendAt !== undefined && (sendAt?.getTime() ?? null) !== (current.sendAt?.getTime() ?? null));
  if (current.status === 'scheduled' && moved) {
    const at = sendAt === undefined ? current.sendAt : sendAt;
    if (at) {
      assertFuture(at);
      const { startsAt } = await sendWindow(db, session.accountId, {
        sendAt: at,
        time: body.time === undefined ? current.time : body.time,
      });
      await scheduleStart(db, session.accountId, id, startsAt!);
    } else {
      changes.status = 'draft';
    }
  }
  const row = await updateBroadcastRow(db, session.accountId, id, changes);
  return { item: await withStats(db, session.accountId, row) };
}

/**
 * POST /v1/broadcasts/{id}/send: check everything a send needs (an email, a verified sender, segments that
 * still exist, a time not past, someone to send to), then schedule it at sendAt or start it now. The
 * `start-broadcast` job queues the deliveries.
 */
export async function sendBroadcast(events: EventStore, db: Database, session: Session, id: number) {
  const { accountId } = session;
  const row = await broadcastOrThrow(db, accountId, id, true);
  if (!isBroadcastEditable(row.status as BroadcastStatus))
    throw conflict(broadcastMessages.notSendable(label(row.status)), 'broadcastNotSendable');
  if (row.emailId === null) throw badRequest(broadcastMessages.noEmail);
  const email = await activeEmail(db, accountId, Number(row.emailId));
  if (!email) throw badRequest(broadcastMessages.emailGone);
  await assertMaySendFrom(db, accountId, email.fromEmail);
  const audience = Audience.safeParse(row.audience);
  if (!audience.success) throw badRequest(broadcastMessages.audienceInvalid);
  const condition = await audienceCondition(
    events,
    db,
    accountId,
    audience.data,
    broadcastMessages.segmentGone,
  );
  // In recipients' time zones the send starts when UTC+14 reaches the time and is past once UTC−12 has.
  const { startsAt, endsAt } = await sendWindow(db, accountId, row);
  const later = startsAt !== null && startsAt.getTime() > Date.now();
  if (endsAt !== null && endsAt.getTime() <= Date.now()) throw badRequest(broadcastMessages.sendAtInPast);
  const category = await categoryOfEmail(
    db,
    accountId,
    email.categoryId === null ? null : Number(email.categoryId),
  );
  const { deliverable } = await countAudience(db, accountId, condition, category);
  if (deliverable === 0) throw badRequest(broadcastMessages.nobodyToSend);
  const abTest = abTestOf(row.abTest);
  if (abTest) await checkAbTestSend(db, accountId, abTest, deliverable, row.time);

  const startAt = later ? startsAt! : new Date();
  await scheduleStart(db, accountId, id, startAt);
  const updated = await updateBroadcastRow(
    db,
    accountId,
    id,
    later
      ? { status: 'scheduled', failure: null }
      : { status: abTest ? 'ab-testing' : 'sending', startedAt: startAt, failure: null },
  );
  return {
    item: await withStats(db, accountId, updated),
    message: later ? broadcastMessages.scheduled : broadcastMessages.sending,
  };
}

/** POST /v1/broadcasts/{id}/cancel: a scheduled or sending broadcast stops; deliveries not yet claimed are canceled. */
export async function cancelBroadcast(db: Database, session: Session, id: number) {
  const row = await broadcastOrThrow(db, session.accountId, id, true);
  if (row.status === 'sent') throw conflict(broadcastMessages.alreadySent, 'broadcastAlreadySent');
  if (!cancelableBroadcastStatuses.includes(row.status as BroadcastStatus))
    throw conflict(broadcastMessages.notCancelable(label(row.status)), 'broadcastNotCancelable');
  await cancelDeliveries(db, session.accountId, 'broadcast', id);
  if (row.status === 'ab-testing') await removeDecision(db, id);
  const updated = await updateBroadcastRow(db, session.accountId, id, {
    status: 'canceled',
    finishedAt: new Date(),
    pausedAt: null,
  });
  return { item: await withStats(db, session.accountId, updated), message: broadcastMessages.canceled };
}

/** GET or POST /v1/broadcasts/{id}/status: the item with live figures, for polling while it sends. */
export async function broadcastStatus(db: Database, session: Session, id: number) {
  const row = await broadcastOrThrow(db, session.accountId, id);
  const progress = await sourceProgress(db, session.accountId, 'broadcast', id);
  return {
    item: toBroadcast(row, progress),
    progress,
    abTest: await abTestResults(db, session.accountId, row),
  };
}

/**
 * DELETE /v1/broadcasts/{id}: archive it. One that is sending refuses (cancel it first); a scheduled one is
 * canceled as it is archived, so nothing leaves for an archived broadcast.
 */
export async function archiveBroadcast(db: Database, session: Session, id: number) {
  const row = await broadcastOrThrow(db, session.accountId, id, true);
  if (row.status !== 'scheduled' && cancelableBroadcastStatuses.includes(row.status as BroadcastStatus)) {
    throw conflict(broadcastMessages.cannotArchiveSending, 'broadcastSending');
  }
  const updated = await updateBroadcastRow(
    db,
    session.accountId,
    id,
    row.status === 'scheduled' ? { archived: true, status: 'canceled' } : { archived: true },
  );
  return { item: await withStats(db, session.accountId, updated), message: broadcastMessages.archived };
}

/** POST /v1/broadcasts/{id}/duplicate: a new draft with the name, email and audience; not the id, creator, times, integration, sendAt or time. */
export async function duplicateBroadcast(db: Database, session: Session, id: number) {
  const source = await broadcastOrThrow(db, session.accountId, id);
  const row = await insertBroadcast(db, {
    accountId: session.accountId,
    name: source.name,
    emailId: source.emailId,
    audience: JSON.stringify(source.audience),
    createdBy: session.teamMemberId,
    abTest: copiedAbTest(source.abTest),
  });
  return { item: toBroadcast(row), message: broadcastMessages.duplicated };
}

/** POST /v1/broadcasts/audience-count: who the audience holds now, and who of them may receive the email (or the default category). */
export async function broadcastAudienceCount(
  events: EventStore,
  db: Database,
  session: Session,
  body: { audience: Audience; emailId?: number | null },
): Promise<AudienceCount> {
  const { accountId } = session;
  const email = body.emailId ? await activeEmail(db, accountId, body.emailId) : undefined;
  if (body.emailId && !email) throw badRequest(emailMessages.notFound);
  const condition = await audienceCondition(
    events,
    db,
    accountId,
    body.audience,
    segmentMessages.unknownSegment,
  );
  const category = await categoryOfEmail(db, accountId, email?.categoryId ? Number(email.categoryId) : null);
  return countAudience(db, accountId, condition, category);
}
