import {
  CreateFolderBody,
  FavoriteBody,
  Folder,
  FolderList,
  FolderQuery,
  IdParams,
  UpdateFolderBody,
} from '@herald/contracts';
import { z } from 'zod';
import { route } from '../../http/route.ts';
import { createFolder, deleteFolder, getFolders, setFavorite, updateFolder } from './folders.service.ts';

/** Folders of segments, emails, flows, person fields, broadcasts and tags (docs/people.md). */
export const foldersRoutes = [
  route({
    method: 'GET',
    url: '/v1/folders',
    auth: 'session',
    summary: 'The folder trees of the account, or of one kind of item',
    query: FolderQuery,
    response: FolderList,
    handler: ({ db, session, query }) => getFolders(db, session, query.folderType),
  }),
  route({
    method: 'POST',
    url: '/v1/folders',
    auth: 'session',
    summary: 'Create a folder',
    body: CreateFolderBody,
    response: z.object({ folder: Folder }),
    status: 201,
    example: { folderType: 'tags', name: 'Lifecycle', color: '#4c6ef5' },
    handler: ({ db, session, body }) => createFolder(db, session, body),
  }),
  route({
    method: 'POST',
    url: '/v1/folders/favorites',
    auth: 'session',
    summary: 'Add an item to favorites or remove it',
    body: FavoriteBody,
    response: z.object({ folder: Folder, message: z.string() }),
    example: { folderType: 'tags', itemId: 'customer', favorite: true },
    handler: ({ db, session, body }) => setFavorite(db, session, body),
  }),
  route({
    method: 'PATCH',
    url: '/v1/folders/:id',
    auth: 'session',
    summary: 'Rename, colour, expand, move or reorder a folder',
    params: IdParams,
    body: UpdateFolderBody,
    response: z.object({ folder: Folder }),
    example: { name: 'Probe' },
    handler: ({ db, session, params, body }) => updateFolder(db, session, params.id, body),
  }),
  route({
    method: 'DELETE',
    url: '/v1/folders/:id',
    auth: 'session',
    summary: 'Delete a folder and, by type, what it holds',
    params: IdParams,
    handler: ({ db, session, params }) => deleteFolder(db, session, params.id),
  }),
];
