import { sql } from 'kysely';
import type { FolderType } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { folderItems } from './folder-items.ts';

export interface ChildRef {
  type: 'folder' | 'item';
  id: number | string;
}

export function listFolders(db: Database, accountId: number, folderType: FolderType) {
  return db
    .selectFrom('folders')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('folderType', '=', folderType)
    .orderBy('id')
    .execute();
}
export type FolderRow = Awaited<ReturnType<typeof listFolders>>[number];

export function findFolder(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('folders')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The root folder of a type, created the first time it is needed. */
export async function ensureRoot(
  db: Database,
  accountId: number,
  folderType: FolderType,
): Promise<FolderRow> {
  await sql`insert into folders (account_id, name, folder_type, is_root) values (${accountId}, 'Root', ${folderType}, true)
    on conflict (account_id, folder_type) where is_root do nothing`.execute(db);
  return db
    .selectFrom('folders')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('folderType', '=', folderType)
    .where('isRoot', '=', true)
    .executeTakeFirstOrThrow();
}

export async function insertFolder(
  db: Database,
  row: {
    accountId: number;
    folderType: FolderType;
    name: string;
    parentId: number;
    color: string | null;
    autoFolderType?: string;
  },
) {
  return db
    .insertInto('folders')
    .values({
      accountId: row.accountId,
      folderType: row.folderType,
      name: row.name,
      parentId: row.parentId,
      color: row.color,
      autoFolderType: row.autoFolderType ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function setChildren(db: Database, accountId: number, id: number, children: ChildRef[]) {
  await db
    .updateTable('folders')
    .set({ children: JSON.stringify(children), updatedAt: sql<Date>`now()` })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .execute();
}

export async function updateFolderRow(
  db: Database,
  accountId: number,
  id: number,
  changes: { name?: string; color?: string | null; expanded?: boolean; parentId?: number },
) {
  if (Object.keys(changes).length === 0) return;
  await db
    .updateTable('folders')
    .set({ ...changes, updatedAt: sql<Date>`now()` })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .execute();
}

export async function deleteFolders(db: Database, accountId: number, ids: number[]) {
  if (ids.length)
    await db.deleteFrom('folders').where('accountId', '=', accountId).where('id', 'in', ids).execute();
}

/** Names of the items that exist for the types whose items live here already (tags, person fields). */
export async function existingItems(
  db: Database,
  accountId: number,
  folderType: FolderType,
): Promise<(string | number)[]> {
  if (folderType === 'tags')
    return (
      await db.selectFrom('tags').select('tag').where('accountId', '=', accountId).orderBy('tag').execute()
    ).map((r) => r.tag);
  if (folderType === 'personFields')
    return (
      await db
        .selectFrom('personFields')
        .select('name')
        .where('accountId', '=', accountId)
        .orderBy('createdAt')
        .execute()
    ).map((r) => r.name);
  if (folderType === 'emails' || folderType === 'broadcasts' || folderType === 'flows')
    return folderItems(folderType).activeIds(db, accountId);
  return [];
}
