import { webhookEventLabels, webhookLimits, webhookMessages, type WebhookEndpoint } from '@herald/contracts';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Menu,
  Stack,
  Switch,
  Text,
  Title,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconAlertTriangle, IconDots, IconPlus, IconWebhook } from '@tabler/icons-react';
import { useState } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { CopyButton } from '../../ui/copy-button.tsx';
import { ListBody } from '../../ui/list-page.tsx';
import { notifyProblem } from './notify-problem.ts';
import { DeliveryLog } from './delivery-log.tsx';
import { EndpointModal } from './endpoint-modal.tsx';
import {
  fetchSecret,
  useDeleteEndpoint,
  useEndpoints,
  useTestEndpoint,
  useUpdateEndpoint,
} from './integrations.api.ts';

function showSecret(endpoint: WebhookEndpoint) {
  fetchSecret(endpoint.id).then(
    ({ secret }) =>
      modals.open({
        title: 'Signing secret',
        children: (
          <Stack gap="xs">
            <Text size="sm">Check each request’s Herald-Signature header with this secret.</Text>
            <Group gap="xs" wrap="nowrap">
              <Text ff="monospace" size="sm" style={{ wordBreak: 'break-all' }}>
                {secret}
              </Text>
              <CopyButton value={secret} label="Copy secret" />
            </Group>
          </Stack>
        ),
      }),
    (error: unknown) => notifyError(error, webhookMessages.secretError),
  );
}

function EndpointCard({
  endpoint,
  onEdit,
  onLog,
}: {
  endpoint: WebhookEndpoint;
  onEdit: () => void;
  onLog: () => void;
}) {
  const update = useUpdateEndpoint();
  const remove = useDeleteEndpoint();
  const test = useTestEndpoint();
  const toggle = (enabled: boolean) =>
    update.mutate(
      { id: endpoint.id, enabled },
      {
        onSuccess: () => notifySuccess(enabled ? 'Endpoint switched on.' : 'Endpoint switched off.'),
        onError: (error) => notifyError(error, webhookMessages.saveError),
      },
    );
  const sendTest = () =>
    test.mutate(endpoint.id, {
      onSuccess: ({ delivery }) =>
        delivery.status === 'sent'
          ? notifySuccess(`Test event delivered (${delivery.responseStatus}).`)
          : notifyProblem(webhookMessages.testError, delivery.lastError ?? 'The endpoint did not answer.'),
      onError: (error) => notifyError(error, webhookMessages.testError),
    });
  const confirmDelete = () =>
    modals.openConfirmModal({
      title: 'Delete webhook endpoint?',
      children: (
        <Text size="sm">
          Herald stops calling {endpoint.url}. Events waiting for it and its delivery log are deleted.
        </Text>
      ),
      labels: { confirm: 'Delete', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(endpoint.id, {
          onSuccess: () => notifySuccess('Webhook endpoint deleted.'),
          onError: (error) => notifyError(error, webhookMessages.deleteError),
        }),
    });
  return (
    <Card withBorder radius="md" p="md" role="listitem" aria-label={endpoint.description ?? endpoint.url}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
          <Stack gap={2} style={{ minWidth: 0 }}>
            {endpoint.description && (
              <Text fw={600} size="sm">
                {endpoint.description}
              </Text>
            )}
            <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
              {endpoint.url}
            </Text>
          </Stack>
          <Group gap="xs" wrap="nowrap">
            <Switch
              checked={endpoint.enabled}
              onChange={(event) => toggle(event.currentTarget.checked)}
              disabled={update.isPending}
              label={endpoint.enabled ? 'On' : 'Off'}
              aria-label={`Send to ${endpoint.url}`}
            />
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <ActionIcon variant="subtle" color="gray" aria-label={`More for ${endpoint.url}`}>
                  <IconDots size={18} />
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={onEdit}>Edit</Menu.Item>
                <Menu.Item onClick={() => showSecret(endpoint)}>Show signing secret</Menu.Item>
                <Menu.Item color="red" onClick={confirmDelete}>
                  Delete
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
        <Group gap={6} wrap="wrap">
          {endpoint.events.map((type) => (
            <Badge key={type} variant="light" color="gray" tt="none">
              {webhookEventLabels[type]}
            </Badge>
          ))}
        </Group>
        {endpoint.disabledReason && (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} p="xs">
            <Text size="sm">{endpoint.disabledReason} Switch it on again once the receiver works.</Text>
          </Alert>
        )}
        {endpoint.enabled && endpoint.failuresInRow > 0 && (
          <Text size="xs" c="orange">
            The last {endpoint.failuresInRow} {endpoint.failuresInRow === 1 ? 'attempt' : 'attempts'} failed;
            Herald keeps retrying and switches the endpoint off after {webhookLimits.disableAfterHours} hours
            of failures.
          </Text>
        )}
        <Group gap="xs">
          <Button size="xs" variant="light" onClick={sendTest} loading={test.isPending}>
            Send test event
          </Button>
          <Button size="xs" variant="default" onClick={onLog}>
            Delivery log
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

/** Outgoing webhooks: the account's endpoints, each with its events, switch, test and delivery log. */
export function WebhookEndpoints({ canWrite }: { canWrite: boolean }) {
  const endpoints = useEndpoints({ enabled: canWrite });
  const [editing, setEditing] = useState<WebhookEndpoint | 'new' | null>(null);
  const [logOf, setLogOf] = useState<WebhookEndpoint | null>(null);

  const list = endpoints.data?.endpoints ?? [];
  const content = canWrite ? (
    <ListBody
      query={endpoints}
      loadingLabel="Loading webhook endpoints"
      skeletonHeights={[110, 110]}
      errorFallback={webhookMessages.loadError}
      isEmpty={list.length === 0}
      empty={
        <Text size="sm" c="dimmed">
          No endpoints yet. Add one to have Herald call your server when people, tags, segments, emails, flows
          or forms change.
        </Text>
      }
    >
      <Stack gap="sm" role="list" aria-label="Webhook endpoints">
        {list.map((endpoint) => (
          <EndpointCard
            key={endpoint.id}
            endpoint={endpoint}
            onEdit={() => setEditing(endpoint)}
            onLog={() => setLogOf(endpoint)}
          />
        ))}
      </Stack>
    </ListBody>
  ) : (
    <Text size="sm" c="dimmed">
      Managing webhooks needs the “Connect and configure apps” permission. Ask an owner of the account to give
      it to you.
    </Text>
  );

  return (
    <Card withBorder radius="md" p="lg" component="section" aria-labelledby="webhooks-heading">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs">
            <IconWebhook size={22} aria-hidden />
            <Title order={3} id="webhooks-heading" fz="lg">
              Outgoing webhooks
            </Title>
          </Group>
          {canWrite && (
            <Button
              size="sm"
              leftSection={<IconPlus size={16} />}
              onClick={() => setEditing('new')}
              disabled={list.length >= webhookLimits.maxEndpoints}
            >
              Add endpoint
            </Button>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          Herald POSTs signed JSON to your URLs as things change, retries for about ten hours when a call
          fails, and switches an endpoint off after a day of failures.
        </Text>
        {content}
      </Stack>
      {editing && (
        <EndpointModal endpoint={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />
      )}
      {logOf && <DeliveryLog endpoint={logOf} onClose={() => setLogOf(null)} />}
    </Card>
  );
}
