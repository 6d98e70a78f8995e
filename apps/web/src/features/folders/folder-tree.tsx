import { folderMessages, type Folder, type FolderType } from '@herald/contracts';
import { ActionIcon, Box, Group, Paper, Stack, Text, Tooltip } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconFolderPlus, IconStarFilled } from '@tabler/icons-react';
import { useIsMutating } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import {
  FolderEditModal,
  MoveItemModal,
  noFolder,
  type EditState,
  type MoveState,
} from './folder-dialogs.tsx';
import { FolderRow, ItemRow } from './folder-rows.tsx';
import {
  folderErrors,
  foldersKey,
  useDeleteFolder,
  useFolders,
  useToggleFavorite,
  useUpdateFolder,
} from './folders.api.ts';

export { folderColors } from './folder-dialogs.tsx';
import type { FolderTreeItem } from './folder-tree-item.ts';

export type { FolderTreeItem } from './folder-tree-item.ts';

interface FolderTreeProps {
  folderType: FolderType;
  title: string;
  items: FolderTreeItem[];
  canWrite: boolean;
  onItemClick?: (item: FolderTreeItem) => void;
  /** What the delete confirmation says happens to the items inside. */
  deleteWarning: string;
  /** Width of the column the tree sits in. */
  w?: number | string;
}

type ChildRef = Folder['childrenIds'][number];

/**
 * A left-column tree of folders for one folder type (GET /v1/folders): favourites, subfolders with
 * colour dots that expand and collapse, and the items of the root. Renders nothing when the server
 * has no folders endpoint yet.
 */
export function FolderTree({
  folderType,
  title,
  items,
  canWrite,
  onItemClick,
  deleteWarning,
  w = 240,
}: FolderTreeProps) {
  const folders = useFolders(folderType);
  const update = useUpdateFolder(folderType);
  const remove = useDeleteFolder(folderType);
  const favorite = useToggleFavorite(folderType);
  const [editing, setEditing] = useState<EditState | null>(null);
  const [moving, setMoving] = useState<MoveState | null>(null);
  // Folder changes run one at a time: actions wait while one is on its way to the server.
  const busy = useIsMutating({ mutationKey: foldersKey(folderType) }) > 0;

  if (!folders.data) return null;
  const all = folders.data.folders;
  const root = all.find((f) => f.root && !f.autoFolderType);
  if (!root) return null;
  const byId = new Map(all.map((f) => [f.id, f]));
  const favorites = all.find((f) => f.autoFolderType === 'favorites');
  const favoriteIds = new Set(
    (favorites?.childrenIds ?? []).filter((c) => c.type === 'item').map((c) => String(c.id)),
  );
  const itemById = new Map(items.map((item) => [String(item.id), item]));
  const placed = new Set<string>();
  for (const f of all) {
    if (f.autoFolderType) continue;
    for (const child of f.childrenIds) if (child.type === 'item') placed.add(String(child.id));
  }
  // Items in no folder belong to the root.
  const rootChildren: ChildRef[] = [
    ...root.childrenIds,
    ...items
      .filter((item) => !placed.has(String(item.id)))
      .map((item): ChildRef => ({ type: 'item', id: item.id })),
  ];

  // Where an item can go: the root ("No folder") and every real folder, in tree order, with its path.
  const moveTargets: { value: string; label: string; name: string }[] = [
    { value: String(root.id), label: noFolder, name: noFolder },
  ];
  const listed = new Set<number>([root.id]);
  const addTargets = (children: ChildRef[], path: string[]) => {
    for (const child of children) {
      if (child.type !== 'folder') continue;
      const folder = byId.get(Number(child.id));
      if (!folder || folder.autoFolderType || folder.root || listed.has(folder.id)) continue;
      listed.add(folder.id);
      const trail = [...path, folder.name];
      moveTargets.push({ value: String(folder.id), label: trail.join(' / '), name: folder.name });
      addTargets(folder.childrenIds, trail);
    }
  };
  addTargets(root.childrenIds, []);
  for (const f of all) {
    if (f.root || f.autoFolderType || listed.has(f.id)) continue;
    listed.add(f.id);
    moveTargets.push({ value: String(f.id), label: f.name, name: f.name });
  }
  const holderOf = (item: FolderTreeItem) =>
    all.find(
      (f) =>
        !f.root &&
        !f.autoFolderType &&
        f.childrenIds.some((c) => c.type === 'item' && String(c.id) === String(item.id)),
    )?.id ?? root.id;

  const toggleFavorite = (item: FolderTreeItem) => {
    const isFavorite = favoriteIds.has(String(item.id));
    favorite.mutate(
      { itemId: item.id, favorite: !isFavorite },
      {
        onSuccess: ({ message }) =>
          notifySuccess(
            message || (isFavorite ? folderMessages.removedFromFavorites : folderMessages.addedToFavorites),
          ),
        onError: (error) => notifyError(error, folderErrors.favorite),
      },
    );
  };

  const confirmDelete = (folder: Folder) =>
    modals.openConfirmModal({
      title: `Delete folder “${folder.name}”?`,
      children: <Text size="sm">{deleteWarning}</Text>,
      labels: { confirm: 'Delete folder', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(folder.id, { onError: (error) => notifyError(error, folderErrors.remove) }),
    });

  const renderItem = (item: FolderTreeItem, depth: number, keyPrefix: string): ReactNode => (
    <ItemRow
      key={`${keyPrefix}-${item.id}`}
      item={item}
      depth={depth}
      isFavorite={favoriteIds.has(String(item.id))}
      canWrite={canWrite}
      busy={busy}
      onClick={() => onItemClick?.(item)}
      onToggleFavorite={() => toggleFavorite(item)}
      onMove={() => setMoving({ item, currentId: holderOf(item) })}
    />
  );

  const renderFolder = (folder: Folder, depth: number, seen: Set<number>): ReactNode => {
    if (seen.has(folder.id)) return null;
    const nextSeen = new Set(seen).add(folder.id);
    return (
      <Box key={`folder-${folder.id}`} role="group" aria-label={folder.name}>
        <FolderRow
          folder={folder}
          depth={depth}
          canWrite={canWrite}
          busy={busy}
          onToggle={() =>
            update.mutate(
              { id: folder.id, expanded: !folder.expanded },
              { onError: (error) => notifyError(error, folderErrors.open) },
            )
          }
          onEdit={() => setEditing({ folder })}
          onNewSubfolder={() => setEditing({ folder: null, parentId: folder.id })}
          onDelete={() => confirmDelete(folder)}
        />
        {folder.expanded && renderChildren(folder.childrenIds, depth + 1, nextSeen, `f${folder.id}`)}
        {folder.expanded && !folder.childrenIds.some(isShown) && (
          // Without this an open, empty folder looks like it holds the root items below it.
          <Text size="xs" c="dimmed" fs="italic" pl={(depth + 1) * 14 + 20} py={2}>
            Empty folder
          </Text>
        )}
      </Box>
    );
  };

  const isShown = (child: ChildRef) =>
    child.type === 'folder'
      ? Boolean(byId.get(Number(child.id))) && !byId.get(Number(child.id))?.autoFolderType
      : itemById.has(String(child.id));

  const renderChildren = (
    children: ChildRef[],
    depth: number,
    seen: Set<number>,
    keyPrefix: string,
  ): ReactNode =>
    children.map((child) => {
      if (child.type === 'folder') {
        const folder = byId.get(Number(child.id));
        // Favorites have their own section above.
        return folder && !folder.autoFolderType ? renderFolder(folder, depth, seen) : null;
      }
      const item = itemById.get(String(child.id));
      return item ? renderItem(item, depth, keyPrefix) : null;
    });

  const favoriteItems = [...favoriteIds]
    .map((id) => itemById.get(id))
    .filter((item): item is FolderTreeItem => Boolean(item));

  return (
    <Paper withBorder radius="md" p="sm" component="nav" aria-label={title} w={w} style={{ flexShrink: 0 }}>
      <Stack gap={4}>
        <Group justify="space-between" wrap="nowrap">
          <Text size="xs" fw={700} tt="uppercase" c="dimmed">
            {title}
          </Text>
          {canWrite && (
            <Tooltip label="New folder" withArrow>
              <ActionIcon
                size="sm"
                variant="subtle"
                onClick={() => setEditing({ folder: null })}
                aria-label="New folder"
              >
                <IconFolderPlus size={16} />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
        {favoriteItems.length > 0 && (
          <Box>
            <Group gap={6} py={3}>
              <IconStarFilled size={14} color="var(--mantine-color-yellow-6)" />
              <Text size="sm" fw={500}>
                Favorites
              </Text>
            </Group>
            {favoriteItems.map((item) => renderItem(item, 0, 'fav'))}
          </Box>
        )}
        {renderChildren(rootChildren, 0, new Set([root.id]), 'root')}
        {!rootChildren.some(isShown) && (
          <Text size="sm" c="dimmed">
            Nothing here yet.
          </Text>
        )}
      </Stack>
      {editing && (
        <FolderEditModal
          key={editing.folder?.id ?? `new-${editing.parentId ?? 'root'}`}
          state={editing}
          folderType={folderType}
          onClose={() => setEditing(null)}
        />
      )}
      {moving && (
        <MoveItemModal
          key={String(moving.item.id)}
          state={moving}
          folderType={folderType}
          targets={moveTargets}
          busy={busy}
          onClose={() => setMoving(null)}
        />
      )}
    </Paper>
  );
}
