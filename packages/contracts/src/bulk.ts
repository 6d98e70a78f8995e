import { z } from 'zod';

const id = z.coerce
  .number()
  .int()
  .positive()
  .max(2 ** 53);
const people = z.array(id).max(1_000_000);

/** Bulk work targets people by id list or by segment (one of them is required). */
export const BulkTagBody = z.strictObject({
  tag: z.string().max(200).optional(),
  people: people.optional(),
  segmentId: id.optional(),
});
export const BulkExportBody = z.strictObject({
  notifyEmail: z.string().trim().max(254).optional(),
  people: people.optional(),
  segmentId: id.optional(),
});
export const BulkArchiveBody = z.strictObject({ people: people.optional(), segmentId: id.optional() });
export const RestoreBody = z.strictObject({ people: people.optional() });
export const BulkAccepted = z.object({ message: z.string(), bulkActionId: z.number().int() });

export const bulkActionKinds = ['tag', 'export', 'archive', 'restore'] as const;
export const BulkAction = z.object({
  id: z.number().int(),
  kind: z.enum(bulkActionKinds),
  status: z.enum(['queued', 'running', 'done', 'failed']),
  total: z.number().int().nullable(),
  done: z.number().int(),
  result: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type BulkAction = z.infer<typeof BulkAction>;

export const folderTypes = ['segments', 'emails', 'flows', 'personFields', 'broadcasts', 'tags'] as const;
export type FolderType = (typeof folderTypes)[number];
export const folderMessages = {
  addedToFavorites: '✅ Added to favorites.',
  removedFromFavorites: '✅ Removed to favorites.',
  folderNotFound: 'Folder not found.',
  rootFolder: "The root folder can't be renamed, moved or deleted.",
  defaultName: 'Unnamed folder',
} as const;

/** A child of a folder: another folder, or an item (person fields and tags use their name as id). */
export const FolderChild = z.object({
  type: z.enum(['folder', 'item']),
  id: z.union([z.number().int(), z.string().max(200)]),
});
export const Folder = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.literal('folder'),
  folderType: z.enum(folderTypes),
  root: z.boolean(),
  autoFolderType: z.string().nullable(),
  parentId: z.number().int().nullable(),
  childrenIds: z.array(FolderChild),
  expanded: z.boolean(),
  color: z.string().nullable(),
});
export type Folder = z.infer<typeof Folder>;
export const FolderList = z.object({ folders: z.array(Folder) });
/** GET /v1/folders: every folder of the account, or those of one kind. */
export const FolderQuery = z.object({ folderType: z.enum(folderTypes).optional() });
export const colorPattern = /^#[0-9a-f]{6}$/i;
/**
 * POST /v1/folders: the folder entity as the spec shows it. `type: 'folder'` and the fields the server
 * decides (id, root, autoFolderType, childrenIds) are accepted and ignored; a new folder starts empty.
 */
export const CreateFolderBody = z.strictObject({
  folderType: z.enum(folderTypes),
  name: z.string().trim().max(200).optional(),
  parentId: id.optional(),
  color: z.union([z.string().regex(colorPattern, 'Colour must be like #aabbcc.'), z.null()]).optional(),
  expanded: z.boolean().optional(),
  type: z.literal('folder', { error: "A folder's type is 'folder'." }).optional(),
  id: z.unknown().optional(),
  root: z.unknown().optional(),
  autoFolderType: z.unknown().optional(),
  childrenIds: z.unknown().optional(),
});
export const UpdateFolderBody = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  color: z.union([z.string().regex(colorPattern, 'Colour must be like #aabbcc.'), z.null()]).optional(),
  expanded: z.boolean().optional(),
  parentId: id.optional(),
  childrenIds: z.array(FolderChild).max(10_000).optional(),
});
export const FavoriteBody = z.strictObject({
  folderType: z.enum(folderTypes),
  itemId: z.union([z.number().int(), z.string().min(1).max(200)]),
  favorite: z.boolean(),
});
