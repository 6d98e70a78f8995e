import { webhookMessages, type WebhookDelivery, type WebhookEndpoint } from '@herald/contracts';
import { Badge, Button, Modal, ScrollArea, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { useDeliveries, useRetryDelivery } from './integrations.api.ts';

const statusColors: Record<WebhookDelivery['status'], string> = {
  pending: 'yellow',
  sending: 'blue',
  sent: 'teal',
  failed: 'red',
};
const statusLabels: Record<WebhookDelivery['status'], string> = {
  pending: 'Retrying',
  sending: 'Sending',
  sent: 'Delivered',
  failed: 'Failed',
};

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

function DeliveryRow({ delivery, endpointId }: { delivery: WebhookDelivery; endpointId: number }) {
  const retry = useRetryDelivery(endpointId);
  const sendAgain = () =>
    retry.mutate(delivery.id, {
      onSuccess: () => notifySuccess(webhookMessages.retried),
      onError: (error) => notifyError(error, webhookMessages.retryError),
    });
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm">{when(delivery.lastAttemptAt ?? delivery.createdAt)}</Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">
          {delivery.test
            ? 'Test event'
            : `${delivery.eventCount} ${delivery.eventCount === 1 ? 'event' : 'events'}`}
        </Text>
        <Text size="xs" c="dimmed">
          {delivery.eventTypes.join(', ')}
        </Text>
      </Table.Td>
      <Table.Td>
        <Badge color={statusColors[delivery.status]} variant="light">
          {delivery.status === 'pending' && delivery.attempts === 0
            ? 'Waiting'
            : statusLabels[delivery.status]}
        </Badge>
        {delivery.status === 'pending' && delivery.nextAt && delivery.attempts > 0 && (
          <Text size="xs" c="dimmed">
            next at {when(delivery.nextAt)}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Text size="sm">{delivery.attempts}</Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{delivery.responseStatus ?? '—'}</Text>
        {delivery.lastError && (
          <Text size="xs" c="red" style={{ wordBreak: 'break-word' }}>
            {delivery.lastError}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        {(delivery.status === 'failed' || (delivery.status === 'pending' && delivery.attempts > 0)) && (
          <Button
            size="compact-xs"
            variant="light"
            onClick={sendAgain}
            loading={retry.isPending}
            aria-label={`Send delivery ${delivery.id} again`}
          >
            Send again
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/** The endpoint's last 50 deliveries, refreshed every 5 s while open. */
export function DeliveryLog({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose: () => void }) {
  const deliveries = useDeliveries(endpoint.id);
  const list = deliveries.data?.deliveries ?? [];
  const empty = (
    <Text size="sm" c="dimmed">
      Nothing sent yet. Deliveries appear here when one of the endpoint’s events happens, or when you send a
      test event.
    </Text>
  );
  return (
    <Modal opened onClose={onClose} title="Delivery log" size="xl">
      <Stack gap="sm">
        <Text size="sm" c="dimmed" style={{ wordBreak: 'break-all' }}>
          {endpoint.url}
        </Text>
        <ListBody
          query={deliveries}
          loadingLabel="Loading deliveries"
          skeletonHeights={[36, 48, 48, 48]}
          errorFallback={webhookMessages.logError}
          isEmpty={list.length === 0}
          empty={empty}
        >
          <ScrollArea type="auto">
            <Table striped miw={640} aria-label="Deliveries">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Time</Table.Th>
                  <Table.Th>Events</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Attempts</Table.Th>
                  <Table.Th>Answer</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((delivery) => (
                  <DeliveryRow key={delivery.id} delivery={delivery} endpointId={endpoint.id} />
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        </ListBody>
      </Stack>
    </Modal>
  );
}
