import { sql, type Insertable } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { TransactionalSends } from '../../db/schema.generated.ts';

export type NewTransactionalSend = Omit<
  Insertable<TransactionalSends>,
  'accountId' | 'id' | 'createdAt' | 'deliveryId'
>;

/** The send made earlier under this Idempotency-Key, with its request hash and delivery. */
export function findByIdempotencyKey(db: Database, accountId: number, key: string) {
  return db
    .selectFrom('transactionalSends')
    .select(['id', 'requestHash', 'deliveryId'])
    .where('accountId', '=', accountId)
    .where('idempotencyKey', '=', key)
    .executeTakeFirst();
}

/**
 * Record a send. With a key already taken (a concurrent call with the same key committed first) nothing is
 * inserted and undefined comes back: the caller reads that call's row instead.
 */
export async function insertSend(
  db: Database,
  accountId: number,
  send: NewTransactionalSend,
): Promise<number | undefined> {
  const row = await db
    .insertInto('transactionalSends')
    .values({ ...send, accountId })
    .onConflict((oc) =>
      oc.columns(['accountId', 'idempotencyKey']).where('idempotencyKey', 'is not', null).doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

export async function setSendDelivery(
  db: Database,
  accountId: number,
  id: number,
  deliveryId: number,
): Promise<void> {
  await db
    .updateTable('transactionalSends')
    .set({ deliveryId })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** What the pipeline needs of a send: its content (ad-hoc), merge data and category. */
export function findSend(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('transactionalSends')
    .select([
      'emailId',
      'subject',
      'preheader',
      'html',
      'fromEmail',
      'fromName',
      'replyTo',
      'data',
      'categoryId',
    ])
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A live (not archived) email of the account. */
export function findLiveEmail(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('emails')
    .select(['id', 'subject', 'preheader', 'html', 'fromEmail'])
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .where('archived', '=', false)
    .executeTakeFirst();
}

export function findCategory(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('communicationCategories')
    .select(['id', 'name', 'type', 'isArchived'])
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The account's first transactional category in use ('Account notices', made with every account, unless archived). */
export function firstTransactionalCategory(db: Database, accountId: number) {
  return db
    .selectFrom('communicationCategories')
    .select(['id', 'name', 'type', 'isArchived'])
    .where('accountId', '=', accountId)
    .where('type', '=', 'transactional')
    .where('isArchived', '=', false)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** The sender an ad-hoc email leaves from when the request names none: the default sender, else the first verified address. */
export async function defaultSender(
  db: Database,
  accountId: number,
): Promise<{ fromEmail: string | null; fromName: string | null; accountName: string | null }> {
  const account = await db
    .selectFrom('accounts')
    .select(['name', 'defaultFromEmail', 'defaultFromName'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  const verified = await db
    .selectFrom('senderAddresses')
    .select('email')
    .where('accountId', '=', accountId)
    .where('status', '=', 'verified')
    .orderBy('verifiedAt')
    .orderBy('email')
    .limit(1)
    .executeTakeFirst();
  return {
    fromEmail: account?.defaultFromEmail ?? verified?.email ?? null,
    fromName: account?.defaultFromName ?? null,
    accountName: account?.name ?? null,
  };
}

/** Whatever may stop mail to this address: the person holding it (archived, opted out of the category) and its suppression. */
export async function recipientStanding(
  db: Database,
  accountId: number,
  address: string,
  categoryId: number,
) {
  const person = await db
    .selectFrom('people as p')
    .select([
      'p.id',
      'p.archivedAt',
      sql<boolean>`exists (select 1 from communication_preferences cp where cp.account_id = p.account_id and cp.person_id = p.id and cp.category_id = ${categoryId} and cp.value = 'optOut')`.as(
        'optedOut',
      ),
    ])
    .where('p.accountId', '=', accountId)
    .where(sql`lower(p.email)`, '=', address)
    .executeTakeFirst();
  const suppression = await db
    .selectFrom('suppressions')
    .select('reason')
    .where('accountId', '=', accountId)
    .where('email', '=', address)
    .executeTakeFirst();
  return {
    person: person
      ? { id: Number(person.id), archived: person.archivedAt !== null, optedOut: person.optedOut }
      : null,
    suppression: suppression?.reason ?? null,
  };
}

/** Queue the one delivery of a send, or record it canceled at once with the reason it cannot go. */
export async function insertDelivery(
  db: Database,
  accountId: number,
  row: {
    sourceId: number;
    personId: number | null;
    emailId: number;
    toAddress: string;
    canceledBecause: string | null;
  },
): Promise<{ id: number; status: string }> {
  const inserted = await db
    .insertInto('deliveries')
    .values({
      accountId,
      sourceKind: 'transactional',
      sourceId: row.sourceId,
      personId: row.personId,
      emailId: row.emailId,
      toAddress: row.toAddress,
      ...(row.canceledBecause ? { status: 'canceled', lastError: row.canceledBecause } : {}),
    })
    .returning(['id', 'status'])
    .executeTakeFirstOrThrow();
  return { id: Number(inserted.id), status: inserted.status };
}

/** A transactional delivery of the account with the category of its send. */
export function findDelivery(db: Database, accountId: number, deliveryId: number) {
  return db
    .selectFrom('deliveries as d')
    .innerJoin('transactionalSends as t', (join) =>
      join.onRef('t.accountId', '=', 'd.accountId').onRef('t.id', '=', 'd.sourceId'),
    )
    .select([
      'd.id',
      'd.status',
      'd.toAddress',
      'd.emailId',
      'd.lastError',
      'd.messageId',
      'd.attempts',
      'd.createdAt',
      'd.notBefore',
      'd.sentAt',
      't.categoryId',
    ])
    .where('d.accountId', '=', accountId)
    .where('d.id', '=', deliveryId)
    .where('d.sourceKind', '=', 'transactional')
    .executeTakeFirst();
}

/** A saved email as it is now (archived or not: a send accepted earlier still goes). */
export function findEmailContent(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('emails')
    .select(['name', 'subject', 'preheader', 'html', 'fromName', 'fromEmail', 'replyTo'])
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}
