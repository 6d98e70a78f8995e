import {
  consentMessages,
  type ConfirmResponse,
  type ConsentAction,
  type ConsentHistory,
  type ConsentSource,
  type DoubleOptInSettings,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import type { Services } from '../../services.ts';
import { readConfirmationToken, type ConfirmationRef } from '../consent/confirmation-links.ts';
import {
  consentRecords,
  doubleOptInSettings,
  queueConfirmation,
  recordConsent,
  saveDoubleOptInSettings,
  type Seen,
} from '../consent/consent.queries.ts';
import { insertEvents } from '../events/events.queries.ts';

/** The link's person, or 400 for a forged or unreadable link; `expired` says whether it still confirms. */
function readLink(services: Services, token: string): { ref: ConfirmationRef; expired: boolean } {
  const ref = readConfirmationToken(services.secret, token);
  if (!ref) throw badRequest(consentMessages.linkInvalid);
  return { ref, expired: ref.validUntil <= Date.now() };
}

/**
 * POST /v1/public/confirm-subscription: the confirmation page's script posts the token (a link scanner's GET of the
 * page confirms nobody). In one transaction: the person stops waiting, the confirm is recorded with the request's IP
 * and user agent, and a `confirmed` event is written (segments and flows' event trigger see it). A second use answers
 * "already confirmed"; an expired link is a 410 (ask for a new email); a link for an address the person no longer has,
 * or a person gone, is a 400.
 */
export async function confirmSubscription(
  services: Services,
  token: string,
  seen: Seen,
): Promise<ConfirmResponse> {
  const { ref, expired } = readLink(services, token);
  return withAccount(services.db, ref.accountId, async (db) => {
    const account = await db
      .selectFrom('accounts')
      .select('name')
      .where('id', '=', ref.accountId)
      .executeTakeFirst();
    const person = await db
      .selectFrom('people')
      .select(['id', 'emailKey', 'confirmationPendingAt', 'confirmedAt'])
      .where('accountId', '=', ref.accountId)
      .where('id', '=', ref.personId)
      .forUpdate()
      .executeTakeFirst();
    if (!account || !person || person.emailKey !== ref.email) throw badRequest(consentMessages.linkInvalid);
    const accountName = account.name ?? '';
    if (!person.confirmationPendingAt) {
      if (person.confirmedAt)
        return { status: 'alreadyConfirmed', message: consentMessages.alreadyConfirmed, accountName };
      throw conflict(consentMessages.notPending, 'notPending');
    }
    if (expired) throw new AppError('GoneError', consentMessages.linkExpired, { errorCode: 'linkExpired' });
    const now = new Date();
    await db
      .updateTable('people')
      .set({ confirmationPendingAt: null, confirmedAt: now, updatedAt: now })
      .where('accountId', '=', ref.accountId)
      .where('id', '=', ref.personId)
      .execute();
    await recordConsent(db, ref.accountId, [
      {
        personId: ref.personId,
        action: 'confirm',
        source: 'confirmation-link',
        seen,
        consentText: await subscribedText(db, ref.accountId, ref.personId),
        details: { email: ref.email },
      },
    ]);
    await insertEvents(db, [
      {
        accountId: ref.accountId,
        personId: ref.personId,
        type: 'track',
        name: 'confirmed',
        url: null,
        data: JSON.stringify({ via: 'confirmation-link' }),
        source: 'double-opt-in',
        createdAt: now,
      },
    ]);
    return { status: 'confirmed', message: consentMessages.confirmed, accountName };
  });
}

/** The text the person agreed to when they subscribed (their latest subscribe record). */
async function subscribedText(db: Database, accountId: number, personId: number) {
  const row = await db
    .selectFrom('consentRecords')
    .select('consentText')
    .where('accountId', '=', accountId)
    .where('personId', '=', personId)
    .where('action', '=', 'subscribe')
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.consentText ?? null;
}

/** A person's address (lower case) and where they stand on double opt-in. */
const standing = (db: Database, accountId: number, personId: number) =>
  db
    .selectFrom('people')
    .select(['emailKey', 'confirmationPendingAt', 'confirmedAt'])
    .where('accountId', '=', accountId)
    .where('id', '=', personId)
    .executeTakeFirst();

/**
 * POST /v1/public/confirm-subscription/resend: a new confirmation email for the person of a link (an expired one
 * too, within 30 days of its expiry), while they still wait to confirm; at most 3 an hour per person.
 */
export async function resendConfirmation(services: Services, token: string) {
  const { ref } = readLink(services, token);
  await enforceRateLimit(services.db, `confirmation:${ref.accountId}:${ref.personId}`, 3, 3600);
  await withAccount(services.db, ref.accountId, async (db) => {
    const person = await standing(db, ref.accountId, ref.personId);
    if (!person || person.emailKey !== ref.email) throw badRequest(consentMessages.linkInvalid);
    if (!person.confirmationPendingAt) throw conflict(consentMessages.notPending, 'notPending');
    await queueConfirmation(db, ref.accountId, ref.personId);
  });
  return { message: consentMessages.resent };
}

/**
 * POST /v1/people/{id}/consent/resend: a team member sends a person who still waits to confirm a new confirmation
 * email (after the account's sending was fixed, or when the person asks); the same limit as the link's: 3 an hour.
 */
export async function resendForPerson(services: Services, db: Database, session: Session, personId: number) {
  const person = await standing(db, session.accountId, personId);
  if (!person) throw notFound(consentMessages.personNotFound);
  if (!person.emailKey || !person.confirmationPendingAt)
    throw conflict(consentMessages.notPending, 'notPending');
  try {
    await enforceRateLimit(services.db, `confirmation:${session.accountId}:${personId}`, 3, 3600);
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 429)
      throw new AppError('RateLimitError', consentMessages.resendLimited, error.details);
    throw error;
  }
  await queueConfirmation(db, session.accountId, personId);
  return { message: consentMessages.resentByTeam };
}

/** GET /v1/people/{id}/consent: where the person stands and their consent history, newest first. */
export async function consentHistory(
  db: Database,
  session: Session,
  personId: number,
): Promise<ConsentHistory> {
  const person = await standing(db, session.accountId, personId);
  if (!person) throw notFound(consentMessages.personNotFound);
  const rows = await consentRecords(db, session.accountId, personId);
  return {
    status: person.confirmationPendingAt ? 'pending' : person.confirmedAt ? 'confirmed' : null,
    records: rows.map((r) => ({
      id: Number(r.id),
      at: r.at.toISOString(),
      action: r.action as ConsentAction,
      source: r.source as ConsentSource,
      ip: r.ip,
      userAgent: r.userAgent,
      consentText: r.consentText,
      details: (r.details ?? {}) as Record<string, unknown>,
    })),
  };
}

export const getDoubleOptIn = (db: Database, session: Session) => doubleOptInSettings(db, session.accountId);

/** PUT /v1/settings/double-opt-in: the confirmation email, when one is named, must be one of the account's emails. */
export async function putDoubleOptIn(db: Database, session: Session, body: DoubleOptInSettings) {
  if (body.confirmationEmailId !== null) {
    const email = await db
      .selectFrom('emails')
      .select('id')
      .where('accountId', '=', session.accountId)
      .where('id', '=', body.confirmationEmailId)
      .executeTakeFirst();
    if (!email) throw badRequest(consentMessages.emailNotFound);
  }
  await saveDoubleOptInSettings(db, session.accountId, body);
  return doubleOptInSettings(db, session.accountId);
}
