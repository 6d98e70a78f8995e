import { segmentMessages, type Segment } from '@herald/contracts';
import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { ColourChoice } from '../../ui/colour-choice.tsx';
import { folderColors } from '../folders/folder-tree.tsx';
import { segmentPath, useCreateSegment, useSaveSegment } from './segments.api.ts';

interface SegmentFormProps {
  initialName: string;
  initialColor: string;
  submitLabel: string;
  isPending: boolean;
  onSubmit: (name: string, color: string) => void;
  onCancel: () => void;
}

/** A segment's name and colour; an empty name is refused before any request. */
function SegmentForm({
  initialName,
  initialColor,
  submitLabel,
  isPending,
  onSubmit,
  onCancel,
}: SegmentFormProps) {
  const [name, setName] = useState(initialName);
  const [color, setColor] = useState(initialColor);
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError(segmentMessages.nameRequired);
    setError(null);
    onSubmit(name.trim(), color);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <TextInput
          label="Segment name"
          placeholder="e.g. Active customers"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={error}
          maxLength={200}
          data-autofocus
          required
        />
        <ColourChoice colors={folderColors} value={color} onChange={setColor} />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={isPending}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** "New segment": a name and a colour; the new segment opens with its conditions editor. */
export function NewSegmentModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateSegment();
  const navigate = useNavigate();
  return (
    <Modal opened={opened} onClose={onClose} title="New segment" centered>
      <SegmentForm
        initialName=""
        initialColor={folderColors[0]}
        submitLabel="Create segment"
        isPending={create.isPending}
        onCancel={onClose}
        onSubmit={(name, color) =>
          create.mutate(
            { name, color },
            {
              onSuccess: ({ segment, message }) => {
                notifySuccess(message || segmentMessages.saved);
                onClose();
                void navigate(`${segmentPath(segment.id)}&edit=1`);
              },
              onError: (e) => notifyError(e, segmentMessages.createError),
            },
          )
        }
      />
    </Modal>
  );
}

/** "Rename": a user segment's name and colour, saved with its conditions unchanged. */
export function SegmentSettingsModal({
  segment,
  opened,
  onClose,
}: {
  segment: Segment;
  opened: boolean;
  onClose: () => void;
}) {
  const save = useSaveSegment();
  return (
    <Modal opened={opened} onClose={onClose} title="Rename segment" centered>
      {/* The dialog unmounts its content when closed, so each opening starts from the saved name. */}
      <SegmentForm
        initialName={segment.name}
        initialColor={segment.color ?? folderColors[0]}
        submitLabel="Save"
        isPending={save.isPending}
        onCancel={onClose}
        onSubmit={(name, color) =>
          save.mutate(
            { id: segment.id, name, color, conditions: segment.conditions },
            {
              onSuccess: ({ message }) => {
                notifySuccess(message || segmentMessages.saved);
                onClose();
              },
              onError: (e) => notifyError(e, segmentMessages.saveError),
            },
          )
        }
      />
    </Modal>
  );
}
