import {
  folderMessages,
  folderTypes,
  hasScopes,
  type Folder,
  type FolderType,
  type ScopeId,
} from '@herald/contracts';
import type { z } from 'zod';
import type { CreateFolderBody, FavoriteBody, UpdateFolderBody } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { removeTagFromPeople } from '../tags/tags.queries.ts';
import { folderItems } from './folder-items.ts';
import { sql } from 'kysely';
import {
  deleteFolders,
  ensureRoot,
  existingItems,
  findFolder,
  insertFolder,
  listFolders,
  setChildren,
  updateFolderRow,
  type ChildRef,
  type FolderRow,
} from './folders.queries.ts';

const deleteScopes: Record<FolderType, ScopeId[]> = {
  tags: ['people:write'],
  personFields: ['personFields:write'],
  segments: ['people:write'],
  emails: ['emails:write'],
  flows: ['flows:write'],
  broadcasts: ['broadcasts:write'],
};

const childrenOf = (row: FolderRow) => row.children as unknown as ChildRef[];
const sameRef = (a: ChildRef, b: ChildRef) => a.type === b.type && String(a.id) === String(b.id);

function toFolder(row: FolderRow, children: ChildRef[] = childrenOf(row)): Folder {
  return {
    id: row.id,
    name: row.name,
    type: 'folder',
    folderType: row.folderType as FolderType,
    root: row.isRoot,
    autoFolderType: row.autoFolderType,
    parentId: row.parentId,
    childrenIds: children,
    expanded: row.expanded,
    color: row.color,
  };
}

/** GET /v1/folders: the tree of one type; items in no folder are listed under the root. */
/** One kind's folders, or every kind's when none is named (the spec's call has no parameter). */
export async function getFolders(db: Database, session: Session, folderType: FolderType | undefined) {
  if (folderType === undefined) {
    const folders = [];
    for (const type of folderTypes) folders.push(...(await getFoldersOfType(db, session, type)).folders);
    return { folders };
  }
  return getFoldersOfType(db, session, folderType);
}

async function getFoldersOfType(db: Database, session: Session, folderType: FolderType) {
  const root = await ensureRoot(db, session.accountId, folderType);
  const rows = await listFolders(db, session.accountId, folderType);
  // Favorites hold references, not the items themselves: only real folders count as placing an item.
  const placed = new Set(
    rows
      .filter((r) => r.autoFolderType !== 'favorites')
      .flatMap((r) =>
        childrenOf(r)
          .filter((c) => c.type === 'item')
          .map((c) => String(c.id)),
      ),
  );
  const loose = (await existingItems(db, session.accountId, folderType)).filter(
    (id) => !placed.has(String(id)),
  );
  return {
    folders: rows.map((r) =>
      r.id === root.id
        ? toFolder(r, [...childrenOf(r), ...loose.map((id) => ({ type: 'item' as const, id }))])
        : toFolder(r),
    ),
  };
}

async function folderOrThrow(db: Database, session: Session, id: number) {
  const row = await findFolder(db, session.accountId, id);
  if (!row) throw notFound(folderMessages.folderNotFound);
  return row;
}

export async function createFolder(db: Database, session: Session, body: z.infer<typeof CreateFolderBody>) {
  const root = await ensureRoot(db, session.accountId, body.folderType);
  const parent = body.parentId ? await folderOrThrow(db, session, body.parentId) : root;
  if (parent.folderType !== body.folderType)
    throw badRequest('The parent folder holds another kind of item.');
  const row = await insertFolder(db, {
    accountId: session.accountId,
    folderType: body.folderType,
    name: body.name || folderMessages.defaultName,
    parentId: parent.id,
    color: body.color ?? null,
  });
  await setChildren(db, session.accountId, parent.id, [
    ...childrenOf(parent),
    { type: 'folder', id: row.id },
  ]);
  return { folder: toFolder(row) };
}

/** Ancestors of a folder, nearest first, to refuse a move into its own subtree. */
async function ancestors(db: Database, session: Session, id: number): Promise<number[]> {
  const chain: number[] = [];
  let current = await findFolder(db, session.accountId, id);
  while (current?.parentId && chain.length < 100) {
    chain.push(current.parentId);
    current = await findFolder(db, session.accountId, current.parentId);
  }
  return chain;
}

export async function updateFolder(
  db: Database,
  session: Session,
  id: number,
  body: z.infer<typeof UpdateFolderBody>,
) {
  const row = await folderOrThrow(db, session, id);
  if (row.isRoot && (body.name !== undefined || body.parentId !== undefined))
    throw badRequest(folderMessages.rootFolder);
  if (body.parentId !== undefined && body.parentId !== row.parentId) {
    const parent = await folderOrThrow(db, session, body.parentId);
    if (parent.folderType !== row.folderType)
      throw badRequest('The parent folder holds another kind of item.');
    if (parent.id === id || (await ancestors(db, session, parent.id)).includes(id))
      throw badRequest("A folder can't go inside itself.");
    const oldParent = row.parentId ? await findFolder(db, session.accountId, row.parentId) : undefined;
    if (oldParent)
      await setChildren(
        db,
        session.accountId,
        oldParent.id,
        childrenOf(oldParent).filter((c) => !sameRef(c, { type: 'folder', id })),
      );
    await setChildren(db, session.accountId, parent.id, [...childrenOf(parent), { type: 'folder', id }]);
  }
  if (body.childrenIds) {
    const folderIds = body.childrenIds.filter((c) => c.type === 'folder').map((c) => Number(c.id));
    const own = new Set(
      (await listFolders(db, session.accountId, row.folderType as FolderType)).map((f) => f.id),
    );
    if (folderIds.some((fid) => !own.has(fid) || fid === id))
      throw badRequest('A child folder is not a folder of this kind.');
    await setChildren(db, session.accountId, id, body.childrenIds);
  }
  await updateFolderRow(db, session.accountId, id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.color !== undefined ? { color: body.color } : {}),
    ...(body.expanded !== undefined ? { expanded: body.expanded } : {}),
    ...(body.parentId !== undefined ? { parentId: body.parentId } : {}),
  });
  return { folder: toFolder((await findFolder(db, session.accountId, id))!) };
}

/**
 * DELETE /v1/folders/{id}: the folder, its subfolders, and its items by type — person fields and
 * tags deleted; segments deleted; emails, broadcasts and flows archived (an active flow is switched off).
 */
export async function deleteFolder(db: Database, session: Session, id: number) {
  const row = await folderOrThrow(db, session, id);
  if (row.isRoot) throw badRequest(folderMessages.rootFolder);
  // Deleting a folder deletes or archives what it holds: that needs the right to change those items.
  const needed = deleteScopes[row.folderType as FolderType];
  if (!hasScopes(session, needed))
    throw forbidden(`You need the ${needed.join(', ')} permission to delete this folder and what it holds.`);
  const all = await listFolders(db, session.accountId, row.folderType as FolderType);
  const byId = new Map(all.map((f) => [f.id, f]));
  const doomed: FolderRow[] = [];
  const visit = (f: FolderRow) => {
    doomed.push(f);
    for (const c of childrenOf(f))
      if (c.type === 'folder' && byId.has(Number(c.id))) visit(byId.get(Number(c.id))!);
  };
  visit(row);
  const items =
    row.autoFolderType === 'favorites'
      ? []
      : doomed.flatMap((f) =>
          childrenOf(f)
            .filter((c) => c.type === 'item')
            .map((c) => String(c.id)),
        );
  if (row.folderType === 'tags' && items.length) {
    await db
      .deleteFrom('tags')
      .where('accountId', '=', session.accountId)
      .where('tag', 'in', items)
      .execute();
    for (const tag of items) await removeTagFromPeople(db, session.accountId, tag);
  }
  if (row.folderType === 'personFields' && items.length) {
    await db
      .deleteFrom('personFields')
      .where('accountId', '=', session.accountId)
      .where('name', 'in', items)
      .where('createdBy', '=', 'user')
      .execute();
    for (const name of items) {
      await db
        .updateTable('people')
        .set({ fields: sql`fields - ${name}::text` })
        .where('accountId', '=', session.accountId)
        .where(sql<boolean>`fields ? ${name}::text`)
        .execute();
    }
  }
  if (row.folderType === 'emails' && items.length) {
    await folderItems('emails').archive(
      db,
      session.accountId,
      items.map(Number).filter((emailId) => Number.isSafeInteger(emailId)),
    );
  }
  if (row.folderType === 'broadcasts' && items.length) {
    await folderItems('broadcasts').archive(
      db,
      session.accountId,
      items.map(Number).filter((id) => Number.isSafeInteger(id)),
    );
  }
  if (row.folderType === 'flows' && items.length) {
    await folderItems('flows').archive(
      db,
      session.accountId,
      items.map(Number).filter((id) => Number.isSafeInteger(id)),
    );
  }
  const parent = row.parentId ? byId.get(row.parentId) : undefined;
  if (parent)
    await setChildren(
      db,
      session.accountId,
      parent.id,
      childrenOf(parent).filter((c) => !sameRef(c, { type: 'folder', id })),
    );
  await deleteFolders(
    db,
    session.accountId,
    doomed.map((f) => f.id),
  );
}

/** POST /v1/folders/favorites: add or remove an item; the favorites folder is made on first use. */
export async function setFavorite(db: Database, session: Session, body: z.infer<typeof FavoriteBody>) {
  const root = await ensureRoot(db, session.accountId, body.folderType);
  let favorites = (await listFolders(db, session.accountId, body.folderType)).find(
    (f) => f.autoFolderType === 'favorites',
  );
  if (!favorites) {
    favorites = await insertFolder(db, {
      accountId: session.accountId,
      folderType: body.folderType,
      name: 'Favorites',
      parentId: root.id,
      color: null,
      autoFolderType: 'favorites',
    });
    await setChildren(db, session.accountId, root.id, [
      { type: 'folder', id: favorites.id },
      ...childrenOf(root),
    ]);
  }
  const ref: ChildRef = { type: 'item', id: body.itemId };
  const without = childrenOf(favorites).filter((c) => !sameRef(c, ref));
  await setChildren(db, session.accountId, favorites.id, body.favorite ? [...without, ref] : without);
  return {
    folder: toFolder((await findFolder(db, session.accountId, favorites.id))!),
    message: body.favorite ? folderMessages.addedToFavorites : folderMessages.removedFromFavorites,
  };
}
