import { trackingLimits, type PersonFieldType } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { EventStore } from '../../db/event-store.ts';

/** The account's setting for traits that name no field. */
export async function unknownTraitsSetting(db: Database, accountId: number) {
  const row = await db
    .selectFrom('accounts')
    .select('trackingUnknownTraits')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.trackingUnknownTraits === 'field' ? 'field' : 'drop';
}

/** How long a messageId is remembered: a retry later than this is stored again. */
export const messageIdDays = 7;

/**
 * Forget the account's messageIds older than `messageIdDays`, as many a call as a call may add (a batch's most
 * messages), so the table stays about a week of each account's traffic without a job.
 */
export async function forgetOldMessageIds(db: Database, accountId: number) {
  await sql`delete from tracking_message_ids where account_id = ${accountId} and message_id in (
      select message_id from tracking_message_ids
      where account_id = ${accountId} and received_at < now() - make_interval(days => ${messageIdDays})
      limit ${trackingLimits.batchMessages})`.execute(db);
}

/** Record the messageIds of this call; answers those not received before (a retry's are left out). */
export async function claimMessageIds(db: Database, accountId: number, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await sql<{ id: string }>`insert into tracking_message_ids (account_id, message_id)
    select ${accountId}, m from unnest(${ids}::text[]) m
    on conflict (account_id, message_id) do nothing returning message_id as id`.execute(db);
  return new Set(rows.map((r) => r.id));
}

export interface PersonIdentity {
  id: number;
  email: string | null;
  externalId: string | null;
}

const identity = (db: Database, accountId: number) =>
  db.selectFrom('people').select(['id', 'email', 'externalId']).where('accountId', '=', accountId);

export async function personByUserId(db: Database, accountId: number, userId: string) {
  return identity(db, accountId).where('externalId', '=', userId).orderBy('id').limit(1).executeTakeFirst();
}

export async function personByEmail(db: Database, accountId: number, email: string) {
  return identity(db, accountId).where('emailKey', '=', email.toLowerCase()).executeTakeFirst();
}

export async function personById(db: Database, accountId: number, id: number) {
  return identity(db, accountId).where('id', '=', id).executeTakeFirst();
}

/** The person an anonymousId stands for: the one an identify tied it to, else the anonymous person of that id. */
export async function personByAnonymousId(db: Database, accountId: number, anonymousId: string) {
  const tied = await db
    .selectFrom('trackingIdentities')
    .select('personId')
    .where('accountId', '=', accountId)
    .where('anonymousId', '=', anonymousId)
    .executeTakeFirst();
  if (tied) return personById(db, accountId, tied.personId);
  return identity(db, accountId).where('anonymousId', '=', anonymousId).executeTakeFirst();
}

export async function rememberAnonymousId(
  db: Database,
  accountId: number,
  anonymousId: string,
  personId: number,
) {
  await sql`insert into tracking_identities (account_id, anonymous_id, person_id)
    values (${accountId}, ${anonymousId}, ${personId})
    on conflict (account_id, anonymous_id) do update set person_id = excluded.person_id
    where tracking_identities.person_id <> excluded.person_id`.execute(db);
}

export async function setUserId(db: Database, accountId: number, personId: number, userId: string) {
  await db
    .updateTable('people')
    .set({ externalId: userId, updatedAt: new Date() })
    .where('accountId', '=', accountId)
    .where('id', '=', personId)
    .where((eb) => eb.or([eb('externalId', 'is', null), eb('externalId', '!=', userId)]))
    .execute();
}

/**
 * Merge a person without an email address into another: their events, site visits and anonymous ids change hands,
 * the other keeps its own values and gains the first-class values it lacked, the custom values it lacked and the
 * tags; then the first person goes (and its anonymous id, when the other had none, is the other's).
 */
export async function mergePerson(
  events: EventStore,
  db: Database,
  accountId: number,
  fromId: number,
  intoId: number,
) {
  await events.movePerson(db, accountId, fromId, intoId);
  await db
    .updateTable('siteVisitors')
    .set({ personId: intoId })
    .where('accountId', '=', accountId)
    .where('personId', '=', fromId)
    .execute();
  await db
    .updateTable('trackingIdentities')
    .set({ personId: intoId })
    .where('accountId', '=', accountId)
    .where('personId', '=', fromId)
    .execute();
  const from = await db
    .selectFrom('people')
    .select('anonymousId')
    .where('accountId', '=', accountId)
    .where('id', '=', fromId)
    .executeTakeFirstOrThrow();
  await sql`update people i set
      first_name = coalesce(i.first_name, f.first_name), last_name = coalesce(i.last_name, f.last_name),
      phone = coalesce(i.phone, f.phone), company = coalesce(i.company, f.company),
      website = coalesce(i.website, f.website), fields = f.fields || i.fields,
      tags = i.tags || array(select t from unnest(f.tags) t where not (t = any(i.tags))), updated_at = now()
    from people f
    where i.account_id = ${accountId} and i.id = ${intoId} and f.account_id = ${accountId} and f.id = ${fromId}`.execute(
    db,
  );
  await db.deleteFrom('people').where('accountId', '=', accountId).where('id', '=', fromId).execute();
  if (from.anonymousId) {
    await db
      .updateTable('people')
      .set({ anonymousId: from.anonymousId })
      .where('accountId', '=', accountId)
      .where('id', '=', intoId)
      .where('anonymousId', 'is', null)
      .execute();
    await rememberAnonymousId(db, accountId, from.anonymousId, intoId);
  }
}

/** Create the custom fields unknown traits become (a field another call created meanwhile is kept as it is). */
export async function createTraitFields(
  db: Database,
  accountId: number,
  fields: { name: string; type: PersonFieldType }[],
) {
  if (fields.length === 0) return;
  await db
    .insertInto('personFields')
    .values(fields.map((f) => ({ accountId, name: f.name, title: f.name, type: f.type })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Of these people, the ones without an email address. */
export async function peopleWithoutEmail(db: Database, accountId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('people')
    .select('id')
    .where('accountId', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .where('email', 'is', null)
    .execute();
  return rows.map((r) => Number(r.id));
}

/** Of these people, the ones with an email address. */
export async function peopleWithEmail(db: Database, accountId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('people')
    .select('id')
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .where('email', 'is not', null)
    .execute();
  return rows.map((r) => Number(r.id));
}
