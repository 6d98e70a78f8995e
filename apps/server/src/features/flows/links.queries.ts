import type { Database } from '../../db/connection.ts';

const linkColumns = ['id', 'flowId', 'source', 'target', 'condition'] as const;

export type LinkRow = Awaited<ReturnType<typeof listLinks>>[number];

export function listLinks(db: Database, accountId: number, flowIds: number[]) {
  if (flowIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('flowLinks')
    .select(linkColumns)
    .where('accountId', '=', accountId)
    .where('flowId', 'in', flowIds)
    .orderBy('id')
    .execute();
}

export function insertLink(
  db: Database,
  values: { accountId: number; flowId: number; source: number; target: number; condition: string | null },
) {
  return db.insertInto('flowLinks').values(values).returning(linkColumns).executeTakeFirstOrThrow();
}

export function findLink(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('flowLinks')
    .select(linkColumns)
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findLinkByPair(db: Database, accountId: number, source: number, target: number) {
  return db
    .selectFrom('flowLinks')
    .select(linkColumns)
    .where('accountId', '=', accountId)
    .where('source', '=', source)
    .where('target', '=', target)
    .executeTakeFirst();
}

export async function deleteLinkRow(db: Database, accountId: number, id: number) {
  await db.deleteFrom('flowLinks').where('accountId', '=', accountId).where('id', '=', id).execute();
}

/** Links leaving a step from a branch that no longer exists (an A/B variant renamed or removed). */
export async function deleteLinksOutsideBranches(
  db: Database,
  accountId: number,
  source: number,
  branches: string[],
) {
  let query = db.deleteFrom('flowLinks').where('accountId', '=', accountId).where('source', '=', source);
  query = branches.length
    ? query.where((eb) => eb.or([eb('condition', 'is', null), eb('condition', 'not in', branches)]))
    : query.where('condition', 'is not', null);
  await query.execute();
}
