import { folderMessages, type Folder, type FolderType } from '@herald/contracts';
import { Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { ColourChoice } from '../../ui/colour-choice.tsx';
import { useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import type { FolderTreeItem } from './folder-tree-item.ts';
import { folderErrors, useCreateFolder, useMoveItem, useUpdateFolder } from './folders.api.ts';

/** Colours offered for folders (colorPattern: #rrggbb). */
export const folderColors = [
  '#228be6',
  '#12b886',
  '#fab005',
  '#fd7e14',
  '#fa5252',
  '#be4bdb',
  '#7950f2',
  '#868e96',
] as const;

export interface EditState {
  folder: Folder | null;
  parentId?: number;
}

/** Creates a folder (in the root or under parentId) or renames and recolours one. */
export function FolderEditModal({
  state,
  folderType,
  onClose,
}: {
  state: EditState | null;
  folderType: FolderType;
  onClose: () => void;
}) {
  const create = useCreateFolder(folderType);
  const update = useUpdateFolder(folderType);
  const [name, setName] = useState(state?.folder?.name ?? '');
  const [color, setColor] = useState<string | null>(state?.folder?.color ?? folderColors[0]);
  const isNew = !state?.folder;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!state) return;
    const trimmed = name.trim();
    if (isNew) {
      create.mutate(
        { name: trimmed || undefined, parentId: state.parentId, color: color ?? undefined },
        { onSuccess: onClose, onError: (error) => notifyError(error, folderErrors.create) },
      );
    } else if (state.folder) {
      update.mutate(
        { id: state.folder.id, name: trimmed || undefined, color },
        { onSuccess: onClose, onError: (error) => notifyError(error, folderErrors.save.trim()) },
      );
    }
  };

  return (
    <Modal opened={state !== null} onClose={onClose} title={isNew ? 'New folder' : 'Edit folder'} centered>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Folder name"
            placeholder={folderMessages.defaultName}
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            maxLength={200}
            data-autofocus
          />
          <ColourChoice colors={folderColors} value={color} onChange={setColor} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending || update.isPending}>
              {isNew ? 'Create folder' : 'Save folder'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** What the root is called where an item can be moved: being in the root means being in no folder. */
export const noFolder = 'No folder';

export interface MoveState {
  item: FolderTreeItem;
  /** The folder that holds the item now (the root when it is in no folder). */
  currentId: number;
}

/** Moves one item to another folder, or to no folder. */
export function MoveItemModal({
  state,
  folderType,
  targets,
  busy,
  onClose,
}: {
  state: MoveState;
  folderType: FolderType;
  targets: { value: string; label: string; name: string }[];
  busy: boolean;
  onClose: () => void;
}) {
  const move = useMoveItem(folderType);
  const [value, setValue] = useState<string | null>(String(state.currentId));
  const target = targets.find((t) => t.value === value);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!target || busy) return;
    move.mutate(
      { itemId: state.item.id, targetId: Number(target.value) },
      {
        onSuccess: () => {
          notifySuccess(`Moved to ${target.name}.`);
          onClose();
        },
        onError: (error) => notifyError(error, folderErrors.move),
      },
    );
  };

  return (
    <Modal opened onClose={onClose} title="Move to folder" centered>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <Text size="sm">
            Move <b>{state.item.label}</b> to:
          </Text>
          <Select
            label="Folder"
            data={targets.map(({ value: v, label }) => ({ value: v, label }))}
            value={value}
            onChange={setValue}
            allowDeselect={false}
            searchable={targets.length > 8}
            comboboxProps={{ withinPortal: true }}
            data-autofocus
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button
              type="submit"
              loading={move.isPending}
              disabled={!target || target.value === String(state.currentId) || (busy && !move.isPending)}
            >
              Move
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
