import { sql, type Insertable, type Updateable } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { Broadcasts } from '../../db/schema.generated.ts';

/** The broadcast list, newest change first: active ones, archived ones, or both. */
export function listBroadcasts(db: Database, accountId: number, archived: boolean | 'all') {
  let query = db.selectFrom('broadcasts').selectAll().where('accountId', '=', accountId);
  if (archived !== 'all') query = query.where('archived', '=', archived);
  return query.orderBy('updatedAt', 'desc').orderBy('id', 'desc').execute();
}

export function findBroadcast(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('broadcasts')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}
export type BroadcastRow = NonNullable<Awaited<ReturnType<typeof findBroadcast>>>;

/** The row, locked until the transaction ends: status changes (send, cancel, the start job) run one at a time. */
export function lockBroadcast(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('broadcasts')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export function insertBroadcast(db: Database, row: Insertable<Broadcasts>) {
  return db.insertInto('broadcasts').values(row).returningAll().executeTakeFirstOrThrow();
}

export type BroadcastChanges = Omit<Updateable<Broadcasts>, 'accountId' | 'id' | 'createdAt' | 'createdBy'>;

export function updateBroadcastRow(db: Database, accountId: number, id: number, changes: BroadcastChanges) {
  return db
    .updateTable('broadcasts')
    .set({ ...changes, updatedAt: sql`now()` })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A broadcast that cannot start or go on is failed, with the reason the user sees. */
export async function failBroadcast(
  db: Database,
  accountId: number,
  id: number,
  failure: string,
): Promise<void> {
  await updateBroadcastRow(db, accountId, id, { status: 'failed', failure, finishedAt: new Date() });
}

export interface DeliveryCounts {
  pending: number;
  sending: number;
  sent: number;
  failed: number;
  canceled: number;
  paused: number;
}

/** Delivery rows by status for several broadcasts at once (the list's live figures), in one grouped query. */
export async function deliveryCountsOf(
  db: Database,
  accountId: number,
  ids: number[],
): Promise<Map<number, DeliveryCounts>> {
  const counts = new Map<number, DeliveryCounts>();
  if (!ids.length) return counts;
  const rows = await db
    .selectFrom('deliveries')
    .select(['sourceId', 'status', (eb) => eb.fn.countAll<string>().as('n')])
    .where('accountId', '=', accountId)
    .where('sourceKind', '=', 'broadcast')
    .where('sourceId', 'in', ids)
    .groupBy(['sourceId', 'status'])
    .execute();
  for (const row of rows) {
    const id = Number(row.sourceId);
    const entry = counts.get(id) ?? { pending: 0, sending: 0, sent: 0, failed: 0, canceled: 0, paused: 0 };
    if (row.status in entry) entry[row.status as keyof DeliveryCounts] = Number(row.n);
    counts.set(id, entry);
  }
  return counts;
}

/** Which of these segments exist (id 1, the virtual Archived segment, always does). */
export async function existingSegmentIds(
  db: Database,
  accountId: number,
  ids: number[],
): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db
    .selectFrom('segments')
    .select('id')
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return new Set([1, ...rows.map((row) => Number(row.id))]);
}

/** The email a broadcast sends, with its category; undefined when it does not exist or is archived. */
export function activeEmail(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('emails')
    .select(['id', 'fromEmail', 'categoryId'])
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .where('archived', '=', false)
    .executeTakeFirst();
}

/** Ids of the account's broadcasts that are not archived: the items the broadcasts folder tree lists. */
export async function listActiveBroadcastIds(db: Database, accountId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('broadcasts')
    .select('id')
    .where('accountId', '=', accountId)
    .where('archived', '=', false)
    .orderBy('id')
    .execute();
  return rows.map((row) => Number(row.id));
}

/**
 * Archive these broadcasts (deleting a folder of broadcasts archives what it held). Scheduled ones are canceled as
 * they are archived; ones sending or A/B testing stay as they are, as DELETE /v1/broadcasts/{id} refuses them.
 */
export async function archiveBroadcasts(db: Database, accountId: number, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await db
    .updateTable('broadcasts')
    .set({
      archived: true,
      status: sql`case when status = 'scheduled' then 'canceled' else status end`,
      updatedAt: sql`now()`,
    })
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .where('status', 'not in', ['sending', 'ab-testing', 'ab-test-sending-winner'])
    .execute();
}
