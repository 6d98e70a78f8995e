import type { Database } from '../../db/connection.ts';

/** The folder types whose items belong to features above folders. */
export type ItemFolderType = 'emails' | 'broadcasts' | 'flows';

/** What folders need of a kind of item: the ones not archived, and archiving some (deleting a folder archives what it held). */
export interface FolderItems {
  activeIds(db: Database, accountId: number): Promise<number[]>;
  archive(db: Database, accountId: number, ids: number[]): Promise<void>;
}

// Emails, broadcasts and flows sit above folders (they file themselves into folders): each registers its items at
// start (app/connect-features.ts) instead of folders importing them (docs/architecture.md).
const registered = new Map<ItemFolderType, FolderItems>();

export function registerFolderItems(type: ItemFolderType, items: FolderItems): void {
  registered.set(type, items);
}

export function folderItems(type: ItemFolderType): FolderItems {
  const items = registered.get(type);
  if (!items) throw new Error(`No folder items registered for ${type} (app/connect-features.ts)`);
  return items;
}
