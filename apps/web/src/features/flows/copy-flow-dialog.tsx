import { FlowAttached, FlowUpdateResponse, flowMessages } from '@herald/contracts';
import { Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, errorMessage } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { flowListKey } from './flows.api.ts';

/**
 * The copy flow dialog (work-areas.md §4) for the account's own flows: 'Are you sure you want to copy this flow to
 * your account?', what the copy uses (emails, segments, custom fields: shared with the original, not duplicated),
 * Cancel and Copy Flow. The copy ('Copy of {name}', switched off) opens at /flows/{id}.
 */
export function CopyFlowDialog({ flow, onClose }: { flow: { id: number; name: string } | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const attached = useQuery({
    queryKey: ['flows', 'attached', flow?.id],
    queryFn: () => api.get(`/integrations/${flow!.id}/attached`, { schema: FlowAttached }),
    enabled: flow !== null,
  });
  const copy = useMutation({
    mutationFn: (id: number) => api.post(`/integrations?source=${id}`, {}, { schema: FlowUpdateResponse }),
    onSuccess: ({ integration, message }) => {
      void queryClient.invalidateQueries({ queryKey: flowListKey });
      notifySuccess(message ?? flowMessages.copied);
      onClose();
      void navigate(`/flows/${integration.id}`);
    },
    onError: (error) => notifyError(error, flowMessages.createFallback),
  });
  const counts = attached.data;
  return (
    <Modal opened={flow !== null} onClose={onClose} title={flow ? `Copy “${flow.name}”` : ''}>
      <Stack gap="md">
        <Text size="sm">Are you sure you want to copy this flow to your account?</Text>
        {counts ? (
          <List size="sm" spacing={2} data-testid="copy-flow-counts">
            <List.Item>Emails: {counts.email.length}</List.Item>
            <List.Item>Segments: {counts.segment.length}</List.Item>
            <List.Item>Custom Fields: {counts.field.length}</List.Item>
          </List>
        ) : (
          <Text size="sm" c={attached.isError ? 'red.8' : 'dimmed'}>
            {attached.isError ? errorMessage(attached.error, flowMessages.attachedError) : 'Looking up what the flow uses…'}
          </Text>
        )}
        <Text size="xs" c="dimmed">
          The copy is switched off and uses the same emails, segments and fields as this flow.
        </Text>
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => flow && copy.mutate(flow.id)} loading={copy.isPending}>
            Copy Flow
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
