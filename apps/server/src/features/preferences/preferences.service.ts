import { sendingMessages, type CommunicationPreferences, type PreferenceValue } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { badRequest } from '../../http/errors.ts';
import type { Services } from '../../services.ts';
import { categoryRows } from '../categories/categories.service.ts';
import { recordConsent, unseen, type Seen } from '../consent/consent.queries.ts';
import { suppress } from '../suppressions/suppressions.service.ts';
import { readRecipientToken, type RecipientRef } from './preference-links.ts';

/** The person a link stands for, in that account's row-level security; a forged, expired or orphaned link is 400. */
async function asRecipient<T>(
  services: Services,
  token: string,
  work: (db: Database, ref: RecipientRef, email: string) => Promise<T>,
): Promise<T> {
  const ref = readRecipientToken(services.secret, token);
  if (!ref) throw badRequest(sendingMessages.linkInvalid);
  return withAccount(services.db, ref.accountId, async (db) => {
    const person = await db
      .selectFrom('people')
      .select(['email'])
      .where('accountId', '=', ref.accountId)
      .where('id', '=', ref.personId)
      .executeTakeFirst();
    if (!person?.email) throw badRequest(sendingMessages.linkInvalid);
    return work(db, ref, person.email);
  });
}

/** `email:12` → { emailId: 12 }: what the unsubscribed event says about where it came from. */
function subjectOf(source: string | undefined): Record<string, number> {
  const match = /^(email|broadcast|flow):(\d{1,15})/.exec(source ?? '');
  return match ? { [`${match[1]}Id`]: Number(match[2]) } : {};
}

/**
 * Unsubscribe the person from all marketing mail: their address goes on the suppression list and, the first
 * time, an `unsubscribed` email event is recorded (segments' email activity and the metrics read it).
 */
async function unsubscribePerson(
  db: Database,
  ref: RecipientRef,
  email: string,
  source: 'one-click' | 'link' | 'preference-centre',
  seen: Seen,
): Promise<void> {
  const changed = await suppress(db, ref.accountId, [{ email, reason: 'unsubscribed', source }]);
  if (!changed) return;
  await recordConsent(db, ref.accountId, [
    {
      personId: ref.personId,
      action: 'unsubscribe',
      source: source === 'link' ? 'unsubscribe-link' : source,
      seen,
      consentText: null,
      details: { ...subjectOf(ref.source), ...(ref.categoryId ? { categoryId: ref.categoryId } : {}) },
    },
  ]);
  await db
    .insertInto('events')
    .values({
      accountId: ref.accountId,
      personId: ref.personId,
      type: 'email',
      name: 'unsubscribed',
      source: 'email',
      data: JSON.stringify({
        ...subjectOf(ref.source),
        via: source,
        ...(ref.categoryId ? { categoryId: ref.categoryId } : {}),
      }),
    })
    .execute();
}

/** POST /public/unsubscribe (RFC 8058 one-click) and POST /v1/unsubscribe (the page behind the link). */
export async function unsubscribe(
  services: Services,
  token: string,
  via: 'one-click' | 'link',
  seen: Seen = unseen,
) {
  return asRecipient(services, token, async (db, ref, email) => {
    await unsubscribePerson(db, ref, email, via, seen);
    const account = await db
      .selectFrom('accounts')
      .select('name')
      .where('id', '=', ref.accountId)
      .executeTakeFirst();
    return { message: sendingMessages.unsubscribed, accountName: account?.name ?? '' };
  });
}

/** GET /v1/communication-preferences: the account's live categories and this person's choice in each. */
export async function getPreferences(services: Services, token: string): Promise<CommunicationPreferences> {
  return asRecipient(services, token, async (db, ref, email) => {
    const [account, categories, chosen, suppression] = await Promise.all([
      db
        .selectFrom('accounts')
        .select(['name', 'site', 'logo'])
        .where('id', '=', ref.accountId)
        .executeTakeFirstOrThrow(),
      categoryRows(db, ref.accountId),
      db
        .selectFrom('communicationPreferences')
        .select(['categoryId', 'value'])
        .where('accountId', '=', ref.accountId)
        .where('personId', '=', ref.personId)
        .execute(),
      db
        .selectFrom('suppressions')
        .select('reason')
        .where('accountId', '=', ref.accountId)
        .where('email', '=', email.toLowerCase())
        .executeTakeFirst(),
    ]);
    const live = categories.filter((c) => !c.isArchived);
    const values = new Map(chosen.map((c) => [String(c.categoryId), c.value as PreferenceValue]));
    return {
      categoryId: ref.categoryId && live.some((c) => Number(c.id) === ref.categoryId) ? ref.categoryId : null,
      site: account.site,
      accountName: account.name ?? '',
      logo: account.logo,
      accountId: ref.accountId,
      categoriesForPerson: Object.fromEntries(
        live.map((c) => [String(c.id), values.get(String(c.id)) ?? 'unspecified']),
      ),
      categories: live.map((c) => ({
        id: Number(c.id),
        name: c.name,
        description: c.description,
        type: c.type as 'marketing' | 'transactional',
      })),
      person: { email },
      unsubscribedFromAll: suppression !== undefined,
    };
  });
}

/**
 * POST /v1/communication-preferences: a map of category id to optIn, optOut or unspecified. Every key must be a
 * live category of the link's account, and transactional ones cannot be opted out of; otherwise 400 and nothing
 * changes. Opting in to anything again lifts an unsubscribe-from-all (not a bounce or complaint).
 */
export async function savePreferences(
  services: Services,
  token: string,
  body: Record<string, PreferenceValue>,
  seen: Seen = unseen,
) {
  await asRecipient(services, token, async (db, ref, email) => {
    const categories = (await categoryRows(db, ref.accountId)).filter((c) => !c.isArchived);
    const byId = new Map(categories.map((c) => [String(c.id), c]));
    for (const [id, value] of Object.entries(body)) {
      const category = byId.get(id);
      if (!category) throw badRequest(sendingMessages.unknownCategory(id));
      if (category.type === 'transactional' && value === 'optOut')
        throw badRequest(sendingMessages.transactionalCategory(category.name));
    }
    for (const [id, value] of Object.entries(body)) {
      const categoryId = Number(id);
      if (value === 'unspecified') {
        await db
          .deleteFrom('communicationPreferences')
          .where('accountId', '=', ref.accountId)
          .where('personId', '=', ref.personId)
          .where('categoryId', '=', categoryId)
          .execute();
      } else {
        await db
          .insertInto('communicationPreferences')
          .values({ accountId: ref.accountId, personId: ref.personId, categoryId, value })
          .onConflict((c) =>
            c.columns(['accountId', 'personId', 'categoryId']).doUpdateSet({ value, updatedAt: new Date() }),
          )
          .execute();
      }
    }
    await recordConsent(db, ref.accountId, [
      {
        personId: ref.personId,
        action: 'preferences',
        source: 'preference-centre',
        seen,
        consentText: null,
        details: {
          choices: Object.fromEntries(
            Object.entries(body).map(([id, value]) => [byId.get(id)?.name ?? id, value]),
          ),
        },
      },
    ]);
    if (Object.values(body).includes('optIn')) {
      const lifted = await db
        .deleteFrom('suppressions')
        .where('accountId', '=', ref.accountId)
        .where('email', '=', email.toLowerCase())
        .where('reason', '=', 'unsubscribed')
        .returning(['email', 'reason'])
        .executeTakeFirst();
      if (lifted) {
        await db
          .insertInto('suppressionHistory')
          .values({
            accountId: ref.accountId,
            email: lifted.email,
            action: 'removed',
            reason: lifted.reason,
            source: 'preference-centre',
            note: 'Opted in again from the preference centre.',
          })
          .execute();
      }
    }
  });
}

/** POST /v1/communication-preferences/all: unsubscribe from all marketing mail. */
export async function unsubscribeFromAll(services: Services, token: string, seen: Seen = unseen) {
  await asRecipient(services, token, (db, ref, email) =>
    unsubscribePerson(db, ref, email, 'preference-centre', seen),
  );
}
