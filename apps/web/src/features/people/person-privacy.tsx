import { privacyMessages, type Person } from '@herald/contracts';
import { Alert, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconDownload, IconEraser } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { useErasePerson, useExportPerson } from './privacy.api.ts';

/** What the team member types to confirm an erase: the person's address, or ERASE for someone without one. */
export function eraseConfirmation(person: Pick<Person, 'email'>): string {
  return person.email ?? 'ERASE';
}

function ErasePersonForm({ person, onClose }: { person: Person; onClose: () => void }) {
  const erase = useErasePerson();
  const navigate = useNavigate();
  const [typed, setTyped] = useState('');
  const expected = eraseConfirmation(person);
  const isConfirmed = typed.trim().toLowerCase() === expected.toLowerCase();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isConfirmed) return;
    erase.mutate(person.id, {
      onSuccess: (result) => {
        const outcome = [
          result.flowRunsEnded > 0 && `${result.flowRunsEnded} flow run(s) ended`,
          result.deliveriesCanceled > 0 && `${result.deliveriesCanceled} unsent email(s) canceled`,
        ].filter(Boolean);
        notifySuccess(outcome.length ? `${result.message} ${outcome.join(', ')}.` : result.message);
        onClose();
        void navigate('/people');
      },
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />}>
          <Text size="sm">{privacyMessages.eraseConsequences}</Text>
        </Alert>
        <TextInput
          label={
            person.email ? (
              <>
                Type <b>{expected}</b> to confirm
              </>
            ) : (
              <>
                Type <b>ERASE</b> to confirm
              </>
            )
          }
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
          autoComplete="off"
          data-autofocus
        />
        {erase.isError && (
          <Text size="sm" c="red" role="alert">
            {errorMessage(erase.error, "Couldn't erase this person.")}
          </Text>
        )}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" color="red" disabled={!isConfirmed} loading={erase.isPending}>
            Erase for good
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The person page's "Export data" and "Erase person" (docs/people.md, "Export and erase"). */
export function PersonPrivacyActions({
  person,
  canExport,
  canErase,
}: {
  person: Person;
  canExport: boolean;
  canErase: boolean;
}) {
  const exporting = useExportPerson();
  const [isErasing, setIsErasing] = useState(false);
  const isSmall = useIsNarrow();
  return (
    <>
      {canExport && (
        <Button
          variant="default"
          leftSection={<IconDownload size={16} />}
          loading={exporting.isPending}
          onClick={() =>
            exporting.mutate(person.id, {
              onError: (error) => notifyError(error, "Couldn't export this person's data."),
            })
          }
        >
          Export data
        </Button>
      )}
      {canErase && (
        <Button
          variant="light"
          color="red"
          leftSection={<IconEraser size={16} />}
          onClick={() => setIsErasing(true)}
        >
          Erase person
        </Button>
      )}
      <Modal
        opened={isErasing}
        onClose={() => setIsErasing(false)}
        title={`Erase ${person.email ?? `person ${person.id}`}?`}
        centered
        fullScreen={isSmall}
      >
        {isErasing && <ErasePersonForm person={person} onClose={() => setIsErasing(false)} />}
      </Modal>
    </>
  );
}
