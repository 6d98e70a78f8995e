import { serviceMessages, type ServiceConnection } from '@herald/contracts';
import { Alert, Badge, Button, Card, Group, List, Stack, Text, TextInput, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconAlertTriangle, IconBrandSlack } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { notifyProblem } from './notify-problem.ts';
import { useConnectSlack, useConnections, useDisconnectSlack, useTestSlack } from './integrations.api.ts';

const reasonText: Record<string, string> = {
  wrong_credentials: 'Slack no longer accepts this webhook (it was removed or its channel is gone).',
  expired: 'Slack revoked this webhook.',
  no_credentials: 'Slack is not connected.',
};

function StatusBadge({ connection }: { connection: ServiceConnection | undefined }) {
  if (!connection)
    return (
      <Badge color="gray" variant="light">
        Not connected
      </Badge>
    );
  return connection.status === 'active' ? (
    <Badge color="teal" variant="light">
      Connected
    </Badge>
  ) : (
    <Badge color="red" variant="light">
      Connection failed
    </Badge>
  );
}

/** Slack: connect an incoming webhook, send a test message, disconnect (docs/apps-and-webhooks.md). */
export function SlackCard({ canWrite, steps }: { canWrite: boolean; steps: string[] }) {
  const connections = useConnections();
  const connect = useConnectSlack();
  const disconnect = useDisconnectSlack();
  const test = useTestSlack();
  const [url, setUrl] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const connection = connections.data?.connections.find((c) => c.serviceId === 'slack');
  const failed = connection?.status === 'failed';
  const showForm = canWrite && (!connection || failed || editing);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    connect.mutate(url, {
      onSuccess: (answer) => {
        notifySuccess(answer.message);
        setUrl('');
        setEditing(false);
      },
      onError: (error) => setProblem(errorMessage(error, serviceMessages.saveConfigFallback)),
    });
  };

  const confirmDisconnect = () =>
    modals.openConfirmModal({
      title: 'Disconnect Slack?',
      children: (
        <Text size="sm">
          Flows with a “Send Slack message” step stop when they next post, and account alerts no longer reach
          Slack.
        </Text>
      ),
      labels: { confirm: 'Disconnect', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        disconnect.mutate(undefined, {
          onSuccess: (answer) => notifySuccess(answer.message),
          onError: (error) => notifyError(error, serviceMessages.saveConfigFallback),
        }),
    });

  const sendTest = () =>
    test.mutate(undefined, {
      onSuccess: (answer) =>
        answer.ok
          ? notifySuccess(answer.message)
          : notifyProblem("Slack didn't take the test message", answer.message),
      onError: (error) => notifyError(error, serviceMessages.saveConfigFallback),
    });

  const body = (
    <ListBody
      query={connections}
      loadingLabel="Loading connections"
      skeletonHeights={[20, 36]}
      errorFallback={serviceMessages.retrieveFallback}
    >
      <Stack gap="sm">
        {connection && (
          <Text size="sm" style={{ wordBreak: 'break-all' }}>
            Posts to{' '}
            <Text span ff="monospace" size="sm">
              {connection.label}
            </Text>
          </Text>
        )}
        {connection?.status === 'failed' && (
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            title="Slack stopped accepting Herald's messages"
          >
            {reasonText[connection.authReason ?? 'wrong_credentials']} Flows that post to Slack were switched
            off. Paste a new webhook URL to reconnect, then switch those flows on again.
          </Alert>
        )}
        {showForm && (
          <form onSubmit={submit}>
            <Stack gap="xs">
              <List size="sm" type="ordered" spacing={4}>
                {steps.map((step) => (
                  <List.Item key={step}>{step}</List.Item>
                ))}
              </List>
              <TextInput
                label="Incoming-webhook URL"
                placeholder="https://hooks.slack.com/services/…"
                value={url}
                onChange={(event) => setUrl(event.currentTarget.value)}
                error={problem}
                maxLength={2000}
                autoComplete="off"
              />
              <Group gap="xs">
                <Button type="submit" loading={connect.isPending} leftSection={<IconBrandSlack size={16} />}>
                  {connection ? 'Reconnect' : 'Connect'}
                </Button>
                {editing && (
                  <Button variant="default" onClick={() => setEditing(false)}>
                    Cancel
                  </Button>
                )}
              </Group>
            </Stack>
          </form>
        )}
        {connection && !editing && canWrite && (
          <Group gap="xs">
            {!failed && (
              <>
                <Button variant="light" onClick={sendTest} loading={test.isPending}>
                  Send test message
                </Button>
                <Button variant="default" onClick={() => setEditing(true)}>
                  Change webhook
                </Button>
              </>
            )}
            <Button variant="subtle" color="red" onClick={confirmDisconnect} loading={disconnect.isPending}>
              Disconnect
            </Button>
          </Group>
        )}
      </Stack>
    </ListBody>
  );

  return (
    <Card withBorder radius="md" p="lg" component="section" aria-labelledby="slack-heading">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs">
            <IconBrandSlack size={22} aria-hidden />
            <Title order={3} id="slack-heading" fz="lg">
              Slack
            </Title>
          </Group>
          <StatusBadge connection={connection} />
        </Group>
        <Text size="sm" c="dimmed">
          Post messages to a channel from flows (the “Send Slack message” step) and get Herald's account
          alerts there.
        </Text>
        {body}
      </Stack>
    </Card>
  );
}
