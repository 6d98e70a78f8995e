import { segmentMessages } from '@herald/contracts';
import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { ColourChoice } from '../../ui/colour-choice.tsx';
import { folderColors } from '../folders/folder-tree.tsx';
import { useCreateSegment } from './segments.api.ts';

/** "New segment": a name and a colour; the new segment opens with its conditions editor. */
export function NewSegmentModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const [name, setName] = useState('');
  const [color, setColor] = useState<string>(folderColors[0]);
  const [error, setError] = useState<string | null>(null);
  const create = useCreateSegment();
  const navigate = useNavigate();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError(segmentMessages.nameRequired);
    create.mutate(
      { name: name.trim(), color },
      {
        onSuccess: ({ segment, message }) => {
          notifySuccess(message || segmentMessages.saved);
          setName('');
          setError(null);
          onClose();
          void navigate(`/segments/${segment.id}?edit=1`);
        },
        onError: (e) => notifyError(e, segmentMessages.createError),
      },
    );
  };
  return (
    <Modal opened={opened} onClose={onClose} title="New segment" centered>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <TextInput label="Segment name" placeholder="e.g. Active customers" value={name} onChange={(e) => setName(e.currentTarget.value)} error={error} maxLength={200} data-autofocus required />
          <ColourChoice colors={folderColors} value={color} onChange={setColor} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create segment
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
