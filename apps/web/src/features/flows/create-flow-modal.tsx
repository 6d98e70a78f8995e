import { flowLimits, flowMessages } from '@herald/contracts';
import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { notifyError } from '../../lib/notify.ts';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { useCreateFlow } from './flows.api.ts';

/** The create-flow modal, open while the address has ?create-flow=1 (work-areas.md §2); creating opens the new flow. */
export function CreateFlowModal() {
  const popup = usePopupParam('create-flow');
  const [name, setName] = useState('');
  const create = useCreateFlow();
  const navigate = useNavigate();
  const submit = () =>
    create.mutate(
      { name: name.trim() || flowMessages.defaultName },
      {
        onSuccess: ({ integration }) => {
          setName('');
          void navigate(`/flows/${integration.id}`);
        },
        onError: (error) => notifyError(error, flowMessages.createError),
      },
    );
  return (
    <Modal opened={popup.value === '1'} onClose={popup.close} title="New flow">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Stack gap="md">
          <TextInput label="Name" description="Only your team sees it." placeholder={flowMessages.defaultName} maxLength={flowLimits.maxNameLength} value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={popup.close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create flow
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
