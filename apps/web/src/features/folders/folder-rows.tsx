import type { Folder } from '@herald/contracts';
import { ActionIcon, Badge, ColorSwatch, Group, Menu, Text, Tooltip, UnstyledButton } from '@mantine/core';
import {
  IconChevronDown,
  IconChevronRight,
  IconDots,
  IconFolderSymlink,
  IconStar,
  IconStarFilled,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { FolderTreeItem } from './folder-tree-item.ts';

/** The "…" button of a tree row and the menu it opens. */
function RowActionsMenu({
  label,
  disabled,
  children,
}: {
  label: string;
  disabled: boolean;
  children: ReactNode;
}) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon size="sm" variant="subtle" color="gray" disabled={disabled} aria-label={label}>
          <IconDots size={14} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>{children}</Menu.Dropdown>
    </Menu>
  );
}

/** One item in the tree: its label, a favourite star and, for writers, "Move to folder…". */
export function ItemRow({
  item,
  depth,
  isFavorite,
  canWrite,
  busy,
  onClick,
  onToggleFavorite,
  onMove,
}: {
  item: FolderTreeItem;
  depth: number;
  isFavorite: boolean;
  canWrite: boolean;
  busy: boolean;
  onClick: () => void;
  onToggleFavorite: () => void;
  onMove: () => void;
}) {
  return (
    <Group
      gap={4}
      wrap="nowrap"
      pl={depth * 14 + 20}
      justify="space-between"
      bg={item.isCurrent ? 'var(--mantine-primary-color-light)' : undefined}
      style={{ borderRadius: 'var(--mantine-radius-sm)' }}
    >
      <UnstyledButton
        onClick={onClick}
        style={{ flex: 1, minWidth: 0 }}
        py={3}
        aria-current={item.isCurrent ? 'page' : undefined}
      >
        <Group gap={8} wrap="nowrap">
          {item.color && <ColorSwatch color={item.color} size={10} withShadow={false} aria-hidden />}
          <Text size="sm" truncate fw={item.isCurrent ? 600 : undefined} style={{ flex: 1, minWidth: 0 }}>
            {item.label}
          </Text>
          {item.count && (
            <Badge
              size="xs"
              variant="light"
              color="gray"
              aria-label={item.count.label}
              style={{ flexShrink: 0 }}
            >
              {item.count.value.toLocaleString()}
            </Badge>
          )}
        </Group>
      </UnstyledButton>
      <Tooltip label={isFavorite ? 'Remove from favorites' : 'Add to favorites'} withArrow>
        <ActionIcon
          size="sm"
          variant="subtle"
          color={isFavorite ? 'yellow' : 'gray'}
          onClick={onToggleFavorite}
          aria-label={`${isFavorite ? 'Remove from favorites' : 'Add to favorites'}: ${item.label}`}
          aria-pressed={isFavorite}
        >
          {isFavorite ? <IconStarFilled size={14} /> : <IconStar size={14} />}
        </ActionIcon>
      </Tooltip>
      {canWrite && (
        <RowActionsMenu label={`Item actions: ${item.label}`} disabled={busy}>
          <Menu.Item leftSection={<IconFolderSymlink size={14} />} onClick={onMove}>
            Move to folder…
          </Menu.Item>
        </RowActionsMenu>
      )}
    </Group>
  );
}

/** A folder's own line in the tree: open/close toggle with colour dot and, for writers, its menu. */
export function FolderRow({
  folder,
  depth,
  canWrite,
  busy,
  onToggle,
  onEdit,
  onNewSubfolder,
  onDelete,
}: {
  folder: Folder;
  depth: number;
  canWrite: boolean;
  busy: boolean;
  onToggle: () => void;
  onEdit: () => void;
  onNewSubfolder: () => void;
  onDelete: () => void;
}) {
  return (
    <Group gap={4} wrap="nowrap" pl={depth * 14} justify="space-between">
      <UnstyledButton
        onClick={onToggle}
        aria-expanded={folder.expanded}
        style={{ flex: 1, minWidth: 0 }}
        py={3}
      >
        <Group gap={6} wrap="nowrap">
          {folder.expanded ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
          <ColorSwatch color={folder.color ?? '#adb5bd'} size={10} withShadow={false} aria-hidden />
          <Text size="sm" fw={500} truncate>
            {folder.name}
          </Text>
        </Group>
      </UnstyledButton>
      {canWrite && (
        <RowActionsMenu label={`Folder actions: ${folder.name}`} disabled={busy}>
          <Menu.Item onClick={onEdit}>Rename or recolour</Menu.Item>
          <Menu.Item onClick={onNewSubfolder}>New subfolder</Menu.Item>
          <Menu.Item color="red" onClick={onDelete}>
            Delete folder
          </Menu.Item>
        </RowActionsMenu>
      )}
    </Group>
  );
}
