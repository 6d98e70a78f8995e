import {
  EmailAddress,
  sendingMessages,
  addableSuppressionReasons,
  suppressionReasonLabels,
  suppressionReasons,
  suppressesTransactional,
  type SuppressionReason,
} from '@herald/contracts';
import {
  Badge,
  Button,
  Drawer,
  Group,
  Modal,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
  Timeline,
} from '@mantine/core';
import { IconCircleMinus, IconCirclePlus } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { formatDateTime } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListBody } from '../../ui/list-page.tsx';
import { useAddSuppressions, useRemoveSuppression, useSuppressionHistory } from './suppressions.api.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

export const reasonOptions = suppressionReasons.map((value) => ({
  value,
  label: suppressionReasonLabels[value],
}));
/** The reasons a team member may give; 'erased' is only the erase's own (docs/people.md). */
const addableOptions = reasonOptions.filter((option) =>
  (addableSuppressionReasons as readonly string[]).includes(option.value),
);
const maxAddresses = 1000;

/** The addresses typed one per line or separated by commas or semicolons, without blanks or repeats. */
export function parseAddresses(text: string): string[] {
  const byKey = new Map<string, string>();
  for (const part of text.split(/[\n,;]+/)) {
    const address = part.trim();
    if (address && !byKey.has(address.toLowerCase())) byKey.set(address.toLowerCase(), address);
  }
  return [...byKey.values()];
}

function AddForm({ onClose }: { onClose: () => void }) {
  const add = useAddSuppressions();
  const [text, setText] = useState('');
  const [reason, setReason] = useState<SuppressionReason>('manual');
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const emails = parseAddresses(text);
    const invalid = emails.filter((email) => !EmailAddress.safeParse(email).success);
    if (emails.length === 0) return setError('Enter at least one address.');
    if (invalid.length > 0)
      return setError(
        `Not valid ${invalid.length === 1 ? 'address' : 'addresses'}: ${invalid.slice(0, 5).join(', ')}${invalid.length > 5 ? '…' : ''}`,
      );
    if (emails.length > maxAddresses) return setError('At most 1,000 addresses at a time.');
    setError(null);
    add.mutate(
      { emails, reason, ...(note.trim() ? { note: note.trim() } : {}) },
      {
        onSuccess: (result) => {
          notifySuccess(result.message || sendingMessages.suppressionAdded(result.added));
          onClose();
        },
        onError: (failure) => notifyError(failure, sendingMessages.suppressionSaveError),
      },
    );
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <Textarea
          label="Addresses"
          description="One per line, or separated by commas."
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          error={error}
          autosize
          minRows={4}
          maxRows={12}
          required
          data-autofocus
        />
        <Select
          label="Reason"
          data={addableOptions}
          value={reason}
          onChange={(value) => value && setReason(value as SuppressionReason)}
          allowDeselect={false}
          description={
            suppressesTransactional[reason]
              ? 'No email at all goes to these addresses, transactional included.'
              : 'Marketing email stops; transactional email still arrives.'
          }
        />
        <TextInput
          label="Note"
          value={note}
          onChange={(event) => setNote(event.currentTarget.value)}
          maxLength={500}
          placeholder="Why, for your team"
        />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={add.isPending}>
            Suppress
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Add addresses to the suppression list. */
export function AddSuppressionsModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const isSmall = useIsNarrow('phone');
  return (
    <Modal opened={opened} onClose={onClose} title="Suppress addresses" centered fullScreen={isSmall}>
      {opened && <AddForm onClose={onClose} />}
    </Modal>
  );
}

function RemoveForm({ email, onClose }: { email: string; onClose: () => void }) {
  const remove = useRemoveSuppression();
  const [note, setNote] = useState('');
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    remove.mutate(
      { email, note },
      {
        onSuccess: () => {
          notifySuccess(sendingMessages.suppressionRemoved);
          onClose();
        },
        onError: (error) => notifyError(error, sendingMessages.suppressionSaveError),
      },
    );
  };
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <Text size="sm">
          Emails can go to <strong style={{ wordBreak: 'break-all' }}>{email}</strong> again. The history
          keeps this entry.
        </Text>
        <TextInput
          label="Note (optional)"
          value={note}
          onChange={(event) => setNote(event.currentTarget.value)}
          maxLength={500}
          placeholder="Why, for your team"
          data-autofocus
        />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" color="red" loading={remove.isPending}>
            Remove
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Confirms taking an address off the list, with an optional note for the history. */
export function RemoveSuppressionModal({ email, onClose }: { email: string | null; onClose: () => void }) {
  return (
    <Modal opened={email !== null} onClose={onClose} title="Remove from the suppression list?" centered>
      {email !== null && <RemoveForm key={email} email={email} onClose={onClose} />}
    </Modal>
  );
}

function History({ email }: { email: string }) {
  const history = useSuppressionHistory(email);
  const entries = history.data?.history ?? [];
  return (
    <ListBody
      query={history}
      loadingLabel="Loading history"
      skeletonHeights={[64, 64, 64]}
      errorFallback={sendingMessages.suppressionsLoadError}
      isEmpty={entries.length === 0}
      empty={
        <EmptyState title="No history" description="This address has never been on the suppression list." />
      }
    >
      <Timeline bulletSize={24} lineWidth={2}>
        {entries.map((entry, index) => (
          <Timeline.Item
            key={`${entry.at}-${index}`}
            bullet={entry.action === 'added' ? <IconCirclePlus size={14} /> : <IconCircleMinus size={14} />}
            color={entry.action === 'added' ? 'red' : 'teal'}
            title={entry.action === 'added' ? 'Added' : 'Removed'}
          >
            <Stack gap={4}>
              <Group gap={6}>
                <Badge variant="light" color="gray" size="sm" tt="none">
                  {suppressionReasonLabels[entry.reason]}
                </Badge>
                <Text size="xs" c="dimmed">
                  by {entry.source}
                </Text>
              </Group>
              {entry.note && <Text size="sm">{entry.note}</Text>}
              <Text size="xs" c="dimmed">
                {formatDateTime(entry.at)}
              </Text>
            </Stack>
          </Timeline.Item>
        ))}
      </Timeline>
    </ListBody>
  );
}

/** Every addition and removal of one address. */
export function SuppressionHistoryDrawer({ email, onClose }: { email: string | null; onClose: () => void }) {
  return (
    <Drawer
      opened={email !== null}
      onClose={onClose}
      position="right"
      title={email ? `History of ${email}` : 'History'}
      styles={{ title: { wordBreak: 'break-all', fontWeight: 600 } }}
    >
      {email !== null && <History email={email} />}
    </Drawer>
  );
}
