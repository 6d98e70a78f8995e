import crypto from 'node:crypto';
import {
  adHocEmailId,
  emailMessages,
  IdempotencyKey,
  sendingMessages,
  suppressionReasonLabels,
  transactionalMessages,
  type SuppressionReason,
  type TransactionalDelivery,
  type TransactionalSendBody,
  type TransactionalSendResponse,
  type TransactionalStatus,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { deliverJobKey } from '../deliveries/deliveries.service.ts';
import { compileOrThrow } from '../emails/email-rendering.ts';
import { assertMaySendFrom } from '../senders/sending-rule.ts';
import { stoppingAll } from '../suppressions/recipient-rule.ts';
import {
  defaultSender,
  findByIdempotencyKey,
  findCategory,
  findDelivery,
  findLiveEmail,
  firstTransactionalCategory,
  insertDelivery,
  insertSend,
  recipientStanding,
  setSendDelivery,
  type NewTransactionalSend,
} from './transactional.queries.ts';

/**
 * Suppression reasons that stop a transactional send: those that stop all mail (hard bounce, complaint, invalid,
 * manual; contracts' suppressesTransactional). An unsubscribe from marketing never does.
 */
const stoppingTransactionalSends: ReadonlySet<string> = new Set(stoppingAll);

/** The same JSON for the same request, whatever order its keys came in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const requestHashOf = (body: TransactionalSendBody) =>
  crypto.createHash('sha256').update(canonicalJson(body)).digest('hex');

/** The Idempotency-Key header, if sent: 1 to 200 characters, else 400 before anything happens. */
export function readIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  const parsed = IdempotencyKey.safeParse(Array.isArray(header) ? header.join(',') : header);
  if (!parsed.success) throw badRequest(transactionalMessages.idempotencyKeyInvalid);
  return parsed.data;
}

/** The category a send goes under: the one asked for (transactional, in use), else the account's first transactional one. */
async function chooseCategory(db: Database, accountId: number, categoryId: number | undefined) {
  if (categoryId === undefined) {
    const first = await firstTransactionalCategory(db, accountId);
    if (!first) throw badRequest(transactionalMessages.noTransactionalCategory);
    return Number(first.id);
  }
  const category = await findCategory(db, accountId, categoryId);
  if (!category) throw badRequest(sendingMessages.categoryNotFound);
  if (category.type !== 'transactional')
    throw badRequest(transactionalMessages.categoryNotTransactional(category.name));
  if (category.isArchived) throw badRequest(transactionalMessages.categoryArchived(category.name));
  return Number(category.id);
}

/** What the send row holds for its email: nothing for a saved email (read when sent), the content for an ad-hoc one. */
async function contentOf(
  db: Database,
  accountId: number,
  body: TransactionalSendBody,
): Promise<
  Pick<NewTransactionalSend, 'subject' | 'preheader' | 'html' | 'fromEmail' | 'fromName' | 'replyTo'>
> {
  if (body.emailId !== adHocEmailId) {
    const email = await findLiveEmail(db, accountId, body.emailId);
    if (!email) throw badRequest(emailMessages.notFound);
    compileOrThrow({ subject: email.subject, preheader: email.preheader, html: email.html });
    await assertMaySendFrom(db, accountId, email.fromEmail);
    return {};
  }
  const subject = body.subject!;
  const html = body.html!;
  const preheader = body.preheader ?? '';
  compileOrThrow({ subject, preheader, html });
  const fallback = body.fromEmail ? null : await defaultSender(db, accountId);
  const fromEmail = body.fromEmail ?? fallback?.fromEmail;
  if (!fromEmail)
    throw new AppError('UnprocessableError', transactionalMessages.noSender, { errorCode: 'noSender' });
  await assertMaySendFrom(db, accountId, fromEmail);
  const fromName = body.fromName ?? fallback?.fromName ?? fallback?.accountName ?? '';
  return {
    subject,
    preheader,
    html,
    fromEmail: fromEmail.toLowerCase(),
    fromName,
    replyTo: body.replyTo ?? null,
  };
}

/** Why mail to this address cannot go now, or null when it can. */
async function stopReason(db: Database, accountId: number, address: string, categoryId: number) {
  const standing = await recipientStanding(db, accountId, address, categoryId);
  if (standing.suppression && stoppingTransactionalSends.has(standing.suppression)) {
    const label = suppressionReasonLabels[standing.suppression as SuppressionReason] ?? standing.suppression;
    return {
      personId: standing.person?.id ?? null,
      reason: transactionalMessages.stoppedBySuppression(address, label.toLowerCase()),
    };
  }
  if (standing.person?.archived)
    return { personId: standing.person.id, reason: transactionalMessages.stoppedArchived };
  if (standing.person?.optedOut)
    return { personId: standing.person.id, reason: transactionalMessages.stoppedOptedOut };
  return { personId: standing.person?.id ?? null, reason: null };
}

async function answerFor(
  db: Database,
  accountId: number,
  deliveryId: number,
): Promise<TransactionalSendResponse> {
  const delivery = await findDelivery(db, accountId, deliveryId);
  if (!delivery) throw notFound(transactionalMessages.notFound);
  return {
    deliveryId,
    status: delivery.status as TransactionalStatus,
    ...(delivery.messageId ? { messageId: delivery.messageId } : {}),
  };
}

/** A call with a key used before: the same request answers what the first one did; another request is a 409. */
async function replay(db: Database, accountId: number, key: string, hash: string) {
  const earlier = await findByIdempotencyKey(db, accountId, key);
  if (!earlier) return null;
  if (earlier.requestHash !== hash)
    throw conflict(transactionalMessages.idempotencyKeyReused, 'idempotencyKeyReused');
  if (earlier.deliveryId === null)
    throw conflict(transactionalMessages.idempotencyKeyReused, 'idempotencyKeyReused');
  return answerFor(db, accountId, Number(earlier.deliveryId));
}

/**
 * POST /v1/transactional/send: check the email, sender and category, record the send, and queue its one
 * delivery (or record it canceled when the address may not receive it), all in the request's transaction, so
 * the `deliver` job exists exactly when the send does. A repeated Idempotency-Key answers the first result.
 */
export async function sendTransactional(
  db: Database,
  session: Session,
  body: TransactionalSendBody,
  key: string | null,
): Promise<{ answer: TransactionalSendResponse; replayed: boolean }> {
  const { accountId } = session;
  const hash = requestHashOf(body);
  if (key) {
    const earlier = await replay(db, accountId, key, hash);
    if (earlier) return { answer: earlier, replayed: true };
  }
  const categoryId = await chooseCategory(db, accountId, body.categoryId);
  const content = await contentOf(db, accountId, body);
  const sendId = await insertSend(db, accountId, {
    ...content,
    idempotencyKey: key,
    requestHash: hash,
    emailId: body.emailId,
    toAddress: body.to,
    data: JSON.stringify(body.data ?? {}),
    categoryId,
  });
  if (sendId === undefined) {
    // A concurrent call with the same key committed first: answer as a retry of it.
    const earlier = await replay(db, accountId, key!, hash);
    if (earlier) return { answer: earlier, replayed: true };
    throw conflict(transactionalMessages.idempotencyKeyReused, 'idempotencyKeyReused');
  }
  const stop = await stopReason(db, accountId, body.to, categoryId);
  const delivery = await insertDelivery(db, accountId, {
    sourceId: sendId,
    personId: stop.personId,
    emailId: body.emailId,
    toAddress: body.to,
    canceledBecause: stop.reason,
  });
  await setSendDelivery(db, accountId, sendId, delivery.id);
  if (!stop.reason)
    await enqueueJob(
      db,
      'deliver',
      { accountId, kind: 'transactional', sourceId: sendId },
      { jobKey: deliverJobKey(accountId, 'transactional', sendId) },
    );
  return {
    answer: { deliveryId: delivery.id, status: delivery.status as TransactionalStatus },
    replayed: false,
  };
}

/** GET /v1/transactional/{deliveryId}: where one transactional delivery stands. */
export async function transactionalStatus(
  db: Database,
  session: Session,
  deliveryId: number,
): Promise<TransactionalDelivery> {
  const row = await findDelivery(db, session.accountId, deliveryId);
  if (!row) throw notFound(transactionalMessages.notFound);
  return {
    deliveryId: Number(row.id),
    status: row.status as TransactionalStatus,
    to: row.toAddress,
    emailId: Number(row.emailId),
    categoryId: Number(row.categoryId),
    lastError: row.lastError,
    messageId: row.messageId,
    attempts: row.attempts,
    createdAt: row.createdAt.toISOString(),
    nextAttemptAt: row.status === 'pending' ? row.notBefore.toISOString() : null,
    sentAt: row.sentAt ? row.sentAt.toISOString() : null,
  };
}
