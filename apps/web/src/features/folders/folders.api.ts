import { Folder, FolderList, folderMessages, type FolderType } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, isApiError } from '../../lib/api.ts';

export const foldersKey = (folderType: FolderType) => ['folders', folderType] as const;
/** Folder changes run one at a time (docs/people.md). */
const folderScope = { id: 'folders' };

export const folderErrors = {
  open: "Couldn't open folder.",
  create: "Couldn't create folder.",
  save: "We couldn't save folder. ",
  remove: "Couldn't remove folder/item",
  favorite: "Couldn't move item.",
  move: "Couldn't move item.",
} as const;

/**
 * GET /v1/folders?folderType=…; resolves to null when the server has no folders yet (404), so the
 * tree renders nothing rather than an error.
 */
export function useFolders(folderType: FolderType) {
  return useQuery({
    queryKey: foldersKey(folderType),
    queryFn: async () => {
      try {
        return await api.get(`/folders?folderType=${folderType}`, { schema: FolderList });
      } catch (error) {
        if (isApiError(error) && error.statusCode === 404) return null;
        throw error;
      }
    },
  });
}

type Folders = z.infer<typeof FolderList> | null;

export function useCreateFolder(folderType: FolderType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: foldersKey(folderType),
    scope: folderScope,
    mutationFn: (body: { name?: string; parentId?: number; color?: string }) =>
      api.post('/folders', { folderType, ...body }, { schema: z.object({ folder: Folder }) }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: foldersKey(folderType) }),
  });
}

export function useUpdateFolder(folderType: FolderType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: foldersKey(folderType),
    scope: folderScope,
    mutationFn: ({ id, ...body }: { id: number; name?: string; color?: string | null; expanded?: boolean }) =>
      api.patch(`/folders/${id}`, body, { schema: z.object({ folder: Folder }) }),
    onMutate: async ({ id, ...body }) => {
      await queryClient.cancelQueries({ queryKey: foldersKey(folderType) });
      const previous = queryClient.getQueryData<Folders>(foldersKey(folderType));
      queryClient.setQueryData<Folders>(foldersKey(folderType), (list) =>
        list ? { folders: list.folders.map((f) => (f.id === id ? { ...f, ...body } : f)) } : list,
      );
      return { previous };
    },
    onError: (_error, _vars, context) => {
      if (context?.previous !== undefined) queryClient.setQueryData(foldersKey(folderType), context.previous);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: foldersKey(folderType) }),
  });
}

export function useDeleteFolder(folderType: FolderType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: foldersKey(folderType),
    scope: folderScope,
    mutationFn: (id: number) => api.delete<void>(`/folders/${id}`),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: foldersKey(folderType) });
      // Person fields and tags inside a deleted folder are deleted too.
      void queryClient.invalidateQueries({ queryKey: folderType === 'tags' ? ['tags'] : ['person-fields'] });
    },
  });
}

export function useToggleFavorite(folderType: FolderType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: foldersKey(folderType),
    scope: folderScope,
    mutationFn: (body: { itemId: string | number; favorite: boolean }) =>
      api.post(
        '/folders/favorites',
        { folderType, ...body },
        { schema: z.object({ folder: Folder, message: z.string() }) },
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: foldersKey(folderType) }),
  });
}

const sameItem = (child: Folder['childrenIds'][number], itemId: string | number) =>
  child.type === 'item' && String(child.id) === String(itemId);

/**
 * Moves an item into a folder (or out of every folder, when the target is the root): PATCHes the
 * folder(s) that now hold it without it, then the target with it appended. The root's list is
 * computed by the server (items in no folder), so it is never PATCHed, and favorites only hold
 * references, so they are left alone. Works from a fresh GET so a stale cache can't drop children.
 */
export function useMoveItem(folderType: FolderType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: foldersKey(folderType),
    scope: folderScope,
    mutationFn: async ({ itemId, targetId }: { itemId: string | number; targetId: number }) => {
      const { folders } = await api.get(`/folders?folderType=${folderType}`, { schema: FolderList });
      const target = folders.find((f) => f.id === targetId);
      if (!target || target.autoFolderType) throw new Error(folderMessages.folderNotFound);
      // Removing first: if the second call fails the item lands in "No folder", never in two folders.
      for (const holder of folders) {
        if (holder.root || holder.autoFolderType || holder.id === target.id) continue;
        if (!holder.childrenIds.some((c) => sameItem(c, itemId))) continue;
        await api.patch(
          `/folders/${holder.id}`,
          { childrenIds: holder.childrenIds.filter((c) => !sameItem(c, itemId)) },
          { schema: z.object({ folder: Folder }) },
        );
      }
      if (!target.root && !target.childrenIds.some((c) => sameItem(c, itemId))) {
        await api.patch(
          `/folders/${target.id}`,
          { childrenIds: [...target.childrenIds, { type: 'item', id: itemId }] },
          { schema: z.object({ folder: Folder }) },
        );
      }
      return target;
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: foldersKey(folderType) }),
  });
}
