import { peopleMessages, type SiteCollectBody } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { AppError } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import type { EventStore } from '../../db/event-store.ts';
import {
  insertEvents,
  resolveByAnonymousId,
  resolveByEmail,
  type EventRow,
} from '../events/events.queries.ts';
import { subscribeArrivals, unseen, type Seen } from '../consent/consent.queries.ts';
import { listCustomFields } from '../fields/fields.queries.ts';
import { updatePerson } from '../people/people.queries.ts';
import { checkPersonValues } from '../people/person-values.ts';
import {
  emailOf,
  formHash,
  formKey,
  formShape,
  keptValues,
  mappedValues,
  normaliseFormUrl,
  normalisePageUrl,
} from './form-payload.ts';
import { siteScript } from './site-script.ts';
import { readIdentityToken } from './visitor-identity.ts';

/** The account of a write key, with its form mappings; an unknown key is refused before anything is read or written. */
async function accountOfWriteKey(services: Services, writeKey: string) {
  const row = await services.db
    .selectFrom('accounts')
    .select(['id', 'formFieldMappings'])
    .where('writeKey', '=', writeKey)
    .where('deletingAt', 'is', null)
    .executeTakeFirst();
  if (!row) throw new AppError('AuthError', peopleMessages.invalidWriteKey);
  return {
    accountId: row.id,
    mappings: (row.formFieldMappings ?? {}) as Record<string, Record<string, string>>,
  };
}

/**
 * Move an anonymous visitor's person into the known one: its events change hands and the anonymous person goes.
 * Only a person with neither email nor user id counts as anonymous; a known person is never merged away.
 */
async function mergeInto(
  events: EventStore,
  db: Database,
  accountId: number,
  fromId: number,
  intoId: number,
) {
  if (fromId === intoId) return;
  const from = await db
    .selectFrom('people')
    .select(['email', 'externalId'])
    .where('accountId', '=', accountId)
    .where('id', '=', fromId)
    .executeTakeFirst();
  if (!from || from.email || from.externalId) return;
  await events.movePerson(db, accountId, fromId, intoId);
  await db
    .updateTable('siteVisitors')
    .set({ personId: intoId })
    .where('accountId', '=', accountId)
    .where('personId', '=', fromId)
    .execute();
  await db.deleteFrom('people').where('accountId', '=', accountId).where('id', '=', fromId).execute();
}

/**
 * Record what the site script saw: page views and form submissions of one visitor. The visitor is the person
 * named by a form's email field, else by a valid `hrld_id` of this account, else the visitor's anonymous person;
 * when an anonymous visitor becomes known, what they did before moves to the known person.
 */
export async function collect(services: Services, body: SiteCollectBody, seen: Seen = unseen) {
  const { accountId, mappings } = await accountOfWriteKey(services, body.writeKey);
  const token = body.identity ? readIdentityToken(services.secret, body.identity) : null;
  const forms = body.events.flatMap((event) => {
    if (event.type !== 'form') return [];
    const url = normaliseFormUrl(event.url);
    const shape = formShape(event.form, event.fields);
    const hash = formHash(url, shape);
    const key = formKey(shape, hash);
    const values = keptValues(event.fields);
    const mapping = mappings[key];
    return [{ url, shape, hash, key, values, mapping, email: emailOf(event.fields, values, mapping) }];
  });
  return withAccount(services.db, accountId, async (db) => {
    const email = forms.find((f) => f.email)?.email;
    let known: number | undefined;
    const created: number[] = [];
    if (email) known = (await resolveByEmail(db, accountId, [email], created)).get(email);
    else if (token && token.accountId === accountId) {
      const person = await db
        .selectFrom('people')
        .select('id')
        .where('accountId', '=', accountId)
        .where('id', '=', token.personId)
        .executeTakeFirst();
      known = person?.id;
    }
    const visitor = await db
      .selectFrom('siteVisitors')
      .select('personId')
      .where('accountId', '=', accountId)
      .where('anonymousId', '=', body.anonymousId)
      .executeTakeFirst();
    let personId: number;
    if (known !== undefined) {
      if (visitor) await mergeInto(services.events, db, accountId, visitor.personId, known);
      personId = known;
    } else if (visitor) {
      personId = visitor.personId;
    } else {
      personId = (await resolveByAnonymousId(db, accountId, [body.anonymousId])).get(body.anonymousId)!;
    }
    const pageViews = body.events.filter((e) => e.type === 'page').length;
    await sql`insert into site_visitors (account_id, anonymous_id, person_id, page_views) values (${accountId}, ${body.anonymousId}, ${personId}, ${pageViews})
      on conflict (account_id, anonymous_id) do update set person_id = excluded.person_id, page_views = site_visitors.page_views + excluded.page_views, last_seen_at = now()`.execute(
      db,
    );

    const customFields = forms.some((f) => f.mapping) ? await listCustomFields(db, accountId) : [];
    const now = new Date();
    const rows: EventRow[] = [];
    let formIndex = 0;
    for (const event of body.events) {
      if (event.type === 'page') {
        const data = {
          title: event.title ?? null,
          referrer: event.referrer ?? null,
          anonymousId: body.anonymousId,
        };
        rows.push({
          accountId,
          personId,
          type: 'page',
          name: 'Page viewed',
          url: normalisePageUrl(event.url),
          data: JSON.stringify(data),
          source: 'site',
          createdAt: now,
        });
        continue;
      }
      const form = forms[formIndex++]!;
      let mapped: string | null = null;
      // The mapping fills the person only when this form's own email field identified them.
      if (form.mapping && form.email && form.email === email) {
        try {
          const checked = checkPersonValues(mappedValues(form.values, form.mapping), customFields, {
            allowTags: true,
          });
          await updatePerson(db, accountId, personId, checked.columns, checked.fields);
          mapped = 'applied';
        } catch (error) {
          mapped = error instanceof Error ? error.message : String(error);
        }
      }
      await sql`insert into site_forms (account_id, hash, form_id, url, form, submissions) values (${accountId}, ${form.hash}, ${form.shape.id}, ${form.url}, ${JSON.stringify(form.shape)}::jsonb, 1)
        on conflict (account_id, hash) do update set submissions = site_forms.submissions + 1, last_seen_at = now()`.execute(
        db,
      );
      const data = {
        form: form.shape,
        hash: form.hash,
        key: form.key,
        values: form.values,
        mapping: mapped,
        anonymousId: body.anonymousId,
      };
      rows.push({
        accountId,
        personId,
        type: 'track',
        name: 'form-submitted',
        url: form.url,
        data: JSON.stringify(data),
        source: 'site',
        createdAt: now,
      });
    }
    await insertEvents(db, rows);
    // A person the form brought in subscribes, by that form's double opt-in and consent text.
    const form = forms.find((f) => f.email === email);
    await subscribeArrivals(db, accountId, created, {
      source: 'form',
      seen,
      formKey: form?.key ?? null,
      details: form ? { url: form.url } : {},
    });
    return { accepted: rows.length, identified: known !== undefined };
  });
}

/** The forms seen on the site, most recent first (docs/tracking-and-metrics.md). */
export async function uniqueFormEvents(db: Database, session: Session) {
  const rows = await db
    .selectFrom('siteForms')
    .select(['hash', 'formId', 'url', 'form', 'submissions', 'lastSeenAt'])
    .where('accountId', '=', session.accountId)
    .orderBy('lastSeenAt', 'desc')
    .limit(1000)
    .execute();
  return {
    events: rows.map((r) => {
      const form = r.form as { id: string | null; name: string | null; fields: string[] };
      return {
        url: r.url,
        data: { form },
        hash: r.hash,
        key: r.formId ?? r.hash,
        submissions: r.submissions,
        lastSeenAt: r.lastSeenAt.toISOString(),
      };
    }),
  };
}

/** The snippet, the write key and whether visits have been seen. */
export async function siteTrackingStatus(services: Services, db: Database, session: Session) {
  const account = await services.db
    .selectFrom('accounts')
    .select('writeKey')
    .where('id', '=', session.accountId)
    .executeTakeFirstOrThrow();
  const { rows } = await sql<{
    visitors: number;
    identified: number;
    pageViews: number;
    lastSeenAt: Date | null;
    forms: number;
  }>`
    select count(*)::int as visitors,
      count(*) filter (where p.email is not null or p.external_id is not null)::int as identified,
      coalesce(sum(v.page_views), 0)::int as page_views,
      max(v.last_seen_at) as last_seen_at,
      (select count(*)::int from site_forms f where f.account_id = ${session.accountId}) as forms
    from site_visitors v join people p on p.account_id = v.account_id and p.id = v.person_id
    where v.account_id = ${session.accountId}`.execute(db);
  const r = rows[0]!;
  const scriptUrl = `${services.config.publicUrl}/site.js`;
  return {
    writeKey: account.writeKey,
    scriptUrl,
    snippet: `<script async src="${scriptUrl}" data-write-key="${account.writeKey}"></script>`,
    visitors: r.visitors,
    identifiedVisitors: r.identified,
    pageViews: r.pageViews,
    lastSeenAt: r.lastSeenAt ? new Date(r.lastSeenAt).toISOString() : null,
    forms: r.forms,
  };
}

export { siteScript };
