import { sql } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';

export async function insertBulkAction(
  db: Database,
  row: { accountId: number; kind: string; params: unknown; total: number; createdBy: number },
) {
  const inserted = await db
    .insertInto('bulkActions')
    .values({
      accountId: row.accountId,
      kind: row.kind,
      params: JSON.stringify(row.params),
      total: row.total,
      createdBy: row.createdBy,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

/**
 * A bulk action without its people: what progress reads (`GET /v1/bulk-actions/{id}`, polled while the job runs)
 * and the export's download need. The people are in `params`, 100,000 ids as JSON for a bulk tag of 100,000.
 */
export function findBulkActionStatus(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('bulkActions')
    .select(['id', 'kind', 'status', 'total', 'done', 'result', 'createdAt', 'finishedAt'])
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findBulkAction(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('bulkActions')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function setProgress(
  db: Database,
  accountId: number,
  id: number,
  changes: { status?: string; done?: number; result?: unknown; finished?: boolean },
) {
  await db
    .updateTable('bulkActions')
    .set({
      ...(changes.status ? { status: changes.status } : {}),
      ...(changes.done !== undefined ? { done: changes.done } : {}),
      ...(changes.result !== undefined ? { result: JSON.stringify(changes.result) } : {}),
      ...(changes.finished ? { finishedAt: sql<Date>`now()` } : {}),
    })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** Add a batch's changed people to the action's count, in the batch's transaction. */
export async function addChanged(db: Database, accountId: number, id: number, changed: number) {
  await sql`update bulk_actions set result = jsonb_set(coalesce(result, '{}'), '{changed}',
      to_jsonb(coalesce((result->>'changed')::int, 0) + ${changed}))
    where account_id = ${accountId} and id = ${id}`.execute(db);
}

/** Apply one action to one batch of people; returns the number of people changed. */
export async function applyToBatch(
  db: Database,
  accountId: number,
  kind: 'tag' | 'archive' | 'restore',
  ids: number[],
  tag?: string,
) {
  if (kind === 'tag') {
    const res = await sql`update people set tags = array_append(tags, ${tag}), updated_at = now()
      where account_id = ${accountId} and id = any(${intArray(ids)}::bigint[]) and not (tags @> array[${tag}]::text[])`.execute(
      db,
    );
    return Number(res.numAffectedRows ?? 0);
  }
  const res =
    kind === 'archive'
      ? await sql`update people set archived_at = now() where account_id = ${accountId} and id = any(${intArray(ids)}::bigint[]) and archived_at is null`.execute(
          db,
        )
      : await sql`update people set archived_at = null where account_id = ${accountId} and id = any(${intArray(ids)}::bigint[]) and archived_at is not null`.execute(
          db,
        );
  return Number(res.numAffectedRows ?? 0);
}

export function peopleForExport(db: Database, accountId: number, ids: number[]) {
  return db
    .selectFrom('people')
    .select([
      'id',
      'email',
      'firstName',
      'lastName',
      'phone',
      'company',
      'website',
      'externalId',
      'tags',
      'fields',
      'createdAt',
      'archivedAt',
      'unsubscribedAt',
    ])
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
}

/** Keep the people a segment target resolved to, with the total, so progress and retries use them. */
export async function saveResolvedPeople(
  db: Database,
  accountId: number,
  id: number,
  params: unknown,
  total: number,
) {
  await db
    .updateTable('bulkActions')
    .set({ params: JSON.stringify(params), total })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .execute();
}
