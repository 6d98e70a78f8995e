import { bulkEraseMax, privacyMessages, type BulkEraseResponse } from '@herald/contracts';
import { Alert, Button, FileInput, Group, List, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconFileTypeCsv } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { useBulkErase } from './privacy.api.ts';

const largestFile = 2_000_000;
const shownAddresses = 20;

function Outcome({ result, onClose }: { result: BulkEraseResponse; onClose: () => void }) {
  const listed = (title: string, items: string[]) =>
    items.length > 0 && (
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          {title} ({items.length.toLocaleString('en-US')})
        </Text>
        <List size="sm" aria-label={title}>
          {items.slice(0, shownAddresses).map((item) => (
            <List.Item key={item} style={{ wordBreak: 'break-all' }}>
              {item}
            </List.Item>
          ))}
        </List>
        {items.length > shownAddresses && (
          <Text size="xs" c="dimmed">
            and {items.length - shownAddresses} more
          </Text>
        )}
      </Stack>
    );
  return (
    <Stack gap="md">
      <Alert color="teal" variant="light" role="status">
        <Text size="sm" fw={500}>
          {result.message}
        </Text>
        <Text size="sm">
          {result.flowRunsEnded} flow run(s) ended, {result.deliveriesCanceled} unsent email(s) canceled.
        </Text>
      </Alert>
      {listed('Not found in this account', result.notFound)}
      {listed('Not email addresses', result.invalid)}
      <Group justify="flex-end">
        <Button onClick={onClose}>Done</Button>
      </Group>
    </Stack>
  );
}

function BulkEraseForm({ onClose }: { onClose: () => void }) {
  const erase = useBulkErase();
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const isConfirmed = typed.trim() === 'ERASE';

  if (erase.data) return <Outcome result={erase.data} onClose={onClose} />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file || !isConfirmed) return;
    if (file.size > largestFile) {
      setFileError('The file is larger than 2 MB.');
      return;
    }
    erase.mutate(await file.text());
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="md">
        <Text size="sm">
          A CSV with one address a line, or a column headed “email”; at most{' '}
          {bulkEraseMax.toLocaleString('en-US')} addresses. Everyone it names is erased; the answer lists the
          addresses not found.
        </Text>
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />}>
          <Text size="sm">{privacyMessages.eraseConsequences}</Text>
        </Alert>
        <FileInput
          label="CSV file"
          placeholder="Choose a file"
          accept=".csv,text/csv,text/plain"
          leftSection={<IconFileTypeCsv size={16} />}
          value={file}
          onChange={(f) => (setFile(f), setFileError(null), erase.reset())}
          error={fileError}
          clearable
        />
        <TextInput
          label={
            <>
              Type <b>ERASE</b> to confirm
            </>
          }
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
          autoComplete="off"
        />
        {erase.isError && (
          <Text size="sm" c="red" role="alert">
            {errorMessage(erase.error, "Couldn't erase these people.")}
          </Text>
        )}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" color="red" disabled={!file || !isConfirmed} loading={erase.isPending}>
            Erase everyone in the file
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Erase people in bulk from a CSV of addresses (docs/people.md, "Export and erase"). */
export function BulkEraseModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const isSmall = useIsNarrow();
  return (
    <Modal opened={opened} onClose={onClose} title="Erase people from a CSV" centered fullScreen={isSmall}>
      {opened && <BulkEraseForm onClose={onClose} />}
    </Modal>
  );
}
