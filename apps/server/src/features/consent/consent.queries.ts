import {
  consentMessages,
  FormConsent,
  type ConsentAction,
  type ConsentSource,
  type DoubleOptInSettings,
} from '@herald/contracts';
import crypto from 'node:crypto';
import type { Database } from '../../db/connection.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';

/** Where a consent change came from, as the request showed it. */
export interface Seen {
  ip: string | null;
  userAgent: string | null;
}
export const unseen: Seen = { ip: null, userAgent: null };

/** What a request tells about who made it: the address and the user agent (cut to a sane length). */
export function seenOf(request: {
  ip: string;
  headers: Record<string, string | string[] | undefined>;
}): Seen {
  const agent = request.headers['user-agent'];
  return { ip: request.ip || null, userAgent: typeof agent === 'string' ? agent.slice(0, 500) : null };
}

export interface ConsentEntry {
  personId: number;
  action: ConsentAction;
  source: ConsentSource;
  seen: Seen;
  consentText: string | null;
  details?: Record<string, unknown>;
}

/** Record consent changes in the caller's transaction (proof of consent: docs/senders-and-consent.md). */
export async function recordConsent(db: Database, accountId: number, entries: ConsentEntry[]) {
  if (!entries.length) return;
  await db
    .insertInto('consentRecords')
    .values(
      entries.map((e) => ({
        accountId,
        personId: e.personId,
        action: e.action,
        source: e.source,
        ip: e.seen.ip,
        userAgent: e.seen.userAgent,
        consentText: e.consentText,
        details: JSON.stringify(e.details ?? {}),
      })),
    )
    .execute();
}

/** A person's consent history, newest first. */
export function consentRecords(db: Database, accountId: number, personId: number) {
  return db
    .selectFrom('consentRecords')
    .select(['id', 'at', 'action', 'source', 'ip', 'userAgent', 'consentText', 'details'])
    .where('accountId', '=', accountId)
    .where('personId', '=', personId)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(500)
    .execute();
}

/** The per-form entries as stored; anything that no longer parses counts as "use the account's setting". */
function formsOf(stored: unknown): Record<string, FormConsent> {
  const forms: Record<string, FormConsent> = {};
  if (!stored || typeof stored !== 'object') return forms;
  for (const [key, value] of Object.entries(stored)) {
    const parsed = FormConsent.safeParse(value);
    if (parsed.success) forms[key] = parsed.data;
  }
  return forms;
}

export async function doubleOptInSettings(db: Database, accountId: number): Promise<DoubleOptInSettings> {
  const row = await db
    .selectFrom('accounts')
    .select(['doubleOptIn', 'doubleOptInForms', 'confirmationEmailId'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return {
    doubleOptIn: row.doubleOptIn,
    forms: formsOf(row.doubleOptInForms),
    confirmationEmailId: row.confirmationEmailId === null ? null : Number(row.confirmationEmailId),
  };
}

export async function saveDoubleOptInSettings(db: Database, accountId: number, body: DoubleOptInSettings) {
  await db
    .updateTable('accounts')
    .set({
      doubleOptIn: body.doubleOptIn,
      doubleOptInForms: JSON.stringify(body.forms),
      confirmationEmailId: body.confirmationEmailId,
    })
    .where('id', '=', accountId)
    .execute();
}

/** Whether double opt-in applies to a form (by its key) or, with no form, to the API; and the consent text shown. */
export function arrivalRule(settings: DoubleOptInSettings, formKey: string | null) {
  const form = formKey ? settings.forms[formKey] : undefined;
  return {
    doubleOptIn: form?.doubleOptIn ?? settings.doubleOptIn,
    consentText: formKey
      ? form?.consentText || consentMessages.defaultConsentText
      : consentMessages.apiConsentText,
  };
}

/**
 * People who just arrived (created by a form or the API) subscribe: the subscribe is recorded, and when double
 * opt-in applies each with an address waits for confirmation and gets a confirmation email (the `send-confirmation`
 * job, queued in the same transaction). People who confirmed before (an import said so) are not asked again.
 */
export async function subscribeArrivals(
  db: Database,
  accountId: number,
  personIds: number[],
  arrival: {
    source: 'form' | 'api';
    seen: Seen;
    formKey: string | null;
    details?: Record<string, unknown>;
  },
) {
  if (!personIds.length) return;
  const rule = arrivalRule(await doubleOptInSettings(db, accountId), arrival.formKey);
  let pending: number[] = [];
  if (rule.doubleOptIn) {
    const rows = await db
      .updateTable('people')
      .set({ confirmationPendingAt: new Date() })
      .where('accountId', '=', accountId)
      .where('id', 'in', personIds)
      .where('email', 'is not', null)
      .where('confirmedAt', 'is', null)
      .where('confirmationPendingAt', 'is', null)
      .returning('id')
      .execute();
    pending = rows.map((r) => Number(r.id));
  }
  await recordConsent(
    db,
    accountId,
    personIds.map((personId) => ({
      personId,
      action: 'subscribe' as const,
      source: arrival.source,
      seen: arrival.seen,
      consentText: rule.consentText,
      details: {
        ...arrival.details,
        ...(arrival.formKey ? { form: arrival.formKey } : {}),
        doubleOptIn: pending.includes(personId),
      },
    })),
  );
  for (const personId of pending) await queueConfirmation(db, accountId, personId);
}

/** Queue one confirmation email for a pending person. */
export async function queueConfirmation(db: Database, accountId: number, personId: number) {
  await enqueueJob(db, 'send-confirmation', {
    accountId,
    personId,
    nonce: crypto.randomBytes(9).toString('base64url'),
  });
}
