import { normaliseTag, peopleMessages } from '@herald/contracts';
import { Alert, Button, Group, Loader, Modal, Paper, Stack, Text, TextInput } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconArchive, IconDownload, IconTag } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useBulkAction, useBulkArchive, useBulkExport, useBulkTag } from './people.api.ts';

const bulkErrors = {
  tag: 'Error while adding tags.',
  export: 'Error while exporting people.',
  archive: 'Error while archiving people.',
} as const;

/** Follows one accepted bulk action until it is done, then refreshes the people list. */
export function BulkProgress({ id, onFinished }: { id: number; onFinished: () => void }) {
  const action = useBulkAction(id);
  const queryClient = useQueryClient();
  const status = action.data?.status;
  const isOver = status === 'done' || status === 'failed' || action.isError;
  const finished = useRef(onFinished);
  useEffect(() => {
    finished.current = onFinished;
  });
  useEffect(() => {
    if (!isOver) return;
    if (status === 'failed') notifyError(null, 'The bulk action failed. Please try again.');
    void queryClient.invalidateQueries({ queryKey: ['people'] });
    void queryClient.invalidateQueries({ queryKey: ['tags'] });
    finished.current();
  }, [isOver, status, queryClient]);
  if (isOver) return null;
  const total = action.data?.total;
  return (
    <Alert variant="light" color="blue" icon={<Loader size={16} />} role="status">
      Working on {total ?? 'the selected'} {total === 1 ? 'person' : 'people'}
      {total ? ` — ${action.data?.done ?? 0} of ${total} done` : ''}…
    </Alert>
  );
}

function AddTagModal({
  opened,
  what,
  onClose,
  onSubmit,
}: {
  opened: boolean;
  what: string;
  onClose: () => void;
  onSubmit: (tag: string) => void;
}) {
  const [tag, setTag] = useState('');
  const normalised = normaliseTag(tag);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!normalised) return;
    onSubmit(normalised);
    setTag('');
  };
  return (
    <Modal opened={opened} onClose={onClose} title={`Add tag to ${what}`} centered>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Tag"
            value={tag}
            onChange={(e) => setTag(e.currentTarget.value.replace(/,/g, ''))}
            maxLength={200}
            data-autofocus
            required
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={!normalised}>
              Add tag
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

interface BulkBarProps {
  /** The selected people, or a whole segment (the server resolves its people when the job runs). */
  selected: number[] | { segmentId: number; name: string; count: number | null };
  canWrite: boolean;
  canExport: boolean;
  notifyEmail: string;
  onStarted: (bulkActionId: number) => void;
  onClear: () => void;
}

/** Shown while people are selected: Add tag, Export, Archive (bulk work the server runs later). */
export function BulkBar({ selected, canWrite, canExport, notifyEmail, onStarted, onClear }: BulkBarProps) {
  const tag = useBulkTag();
  const exportPeople = useBulkExport();
  const archive = useBulkArchive();
  const [isTagOpen, setIsTagOpen] = useState(false);
  const target = Array.isArray(selected) ? { people: selected } : { segmentId: selected.segmentId };
  const count = Array.isArray(selected) ? selected.length : (selected.count ?? 0);
  const what = Array.isArray(selected)
    ? `${count} ${count === 1 ? 'person' : 'people'}`
    : `everyone in ${selected.name}`;
  const started = ({ message, bulkActionId }: { message: string; bulkActionId: number }) => {
    notifySuccess(message);
    onStarted(bulkActionId);
    onClear();
  };

  const confirmArchive = () =>
    modals.openConfirmModal({
      title: `Archive ${what}?`,
      children: (
        <Text size="sm">
          Archived people leave every list and flow. You can restore them from the Archived list.
        </Text>
      ),
      labels: { confirm: 'Archive', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        archive.mutate(target, {
          onSuccess: started,
          onError: (error) => notifyError(error, bulkErrors.archive),
        }),
    });

  const onExport = () => {
    if (!notifyEmail) {
      notifyError(null, peopleMessages.exportNeedsEmail);
      return;
    }
    exportPeople.mutate(
      { notifyEmail, ...target },
      { onSuccess: started, onError: (error) => notifyError(error, bulkErrors.export) },
    );
  };

  return (
    <Paper
      withBorder
      radius="md"
      p="xs"
      px="sm"
      bg="indigo.0"
      role="toolbar"
      aria-label={Array.isArray(selected) ? 'Selected people' : 'Everyone in this segment'}
    >
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Group gap="xs">
          <Text size="sm" fw={600}>
            {Array.isArray(selected)
              ? `${count} selected`
              : `All ${selected.count === null ? '' : `${count.toLocaleString()} `}people in ${selected.name}`}
          </Text>
          <Button size="compact-sm" variant="subtle" onClick={onClear}>
            {Array.isArray(selected) ? 'Clear' : 'Close'}
          </Button>
        </Group>
        <Group gap="xs" wrap="wrap">
          {canWrite && (
            <Button
              size="xs"
              variant="default"
              leftSection={<IconTag size={14} />}
              onClick={() => setIsTagOpen(true)}
              loading={tag.isPending}
            >
              Add tag
            </Button>
          )}
          {canExport && (
            <Button
              size="xs"
              variant="default"
              leftSection={<IconDownload size={14} />}
              onClick={onExport}
              loading={exportPeople.isPending}
            >
              Export
            </Button>
          )}
          {canWrite && (
            <Button
              size="xs"
              variant="light"
              color="red"
              leftSection={<IconArchive size={14} />}
              onClick={confirmArchive}
              loading={archive.isPending}
            >
              Archive
            </Button>
          )}
        </Group>
      </Group>
      <AddTagModal
        opened={isTagOpen}
        what={what}
        onClose={() => setIsTagOpen(false)}
        onSubmit={(value) => {
          setIsTagOpen(false);
          tag.mutate(
            { tag: value, ...target },
            { onSuccess: started, onError: (error) => notifyError(error, bulkErrors.tag) },
          );
        }}
      />
    </Paper>
  );
}
