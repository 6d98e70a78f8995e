import {
  webhookEventLabels,
  webhookEventTypes,
  webhookMessages,
  type WebhookEndpoint,
  type WebhookEventType,
} from '@herald/contracts';
import { Alert, Button, Checkbox, Group, Modal, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { notifySuccess } from '../../lib/notify.ts';
import { CopyButton } from '../../ui/copy-button.tsx';
import { useCreateEndpoint, useUpdateEndpoint } from './integrations.api.ts';

interface Props {
  /** The endpoint to change; null to add one. */
  endpoint: WebhookEndpoint | null;
  onClose: () => void;
}

/** Add or change an outgoing webhook endpoint: URL, description and events. A new one shows its signing secret once. */
export function EndpointModal({ endpoint, onClose }: Props) {
  const create = useCreateEndpoint();
  const update = useUpdateEndpoint();
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [events, setEvents] = useState<WebhookEventType[]>(endpoint?.events ?? ['person.created']);
  const [problem, setProblem] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    if (!url.trim()) return setProblem('Enter the URL Herald should call.');
    if (!events.length) return setProblem('Choose at least one event.');
    const input = { url: url.trim(), events, description: description.trim() || null };
    if (endpoint)
      update.mutate(
        { id: endpoint.id, ...input },
        {
          onSuccess: () => (notifySuccess('Webhook endpoint saved.'), onClose()),
          onError: (error) => setProblem(errorMessage(error, webhookMessages.saveError)),
        },
      );
    else
      create.mutate(input, {
        onSuccess: (answer) => (notifySuccess('Webhook endpoint added.'), setSecret(answer.secret)),
        onError: (error) => setProblem(errorMessage(error, webhookMessages.saveError)),
      });
  };

  if (secret)
    return (
      <Modal opened onClose={onClose} title="Endpoint added" size="lg">
        <Stack gap="sm">
          <Alert icon={<IconKey size={18} />} color="indigo" variant="light" title="Signing secret">
            <Text size="sm">
              Every request carries{' '}
              <Text span ff="monospace">
                Herald-Signature: t=&lt;unix time&gt;,v1=&lt;hex&gt;
              </Text>
              , the HMAC-SHA256 of “t.body” under this secret. Check it before trusting a call. You can show
              the secret again from the endpoint’s menu.
            </Text>
          </Alert>
          <Group gap="xs" wrap="nowrap">
            <TextInput label="Secret" value={secret} readOnly style={{ flex: 1 }} ff="monospace" />
            <CopyButton value={secret} label="Copy secret" />
          </Group>
          <Group justify="flex-end">
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      </Modal>
    );

  return (
    <Modal
      opened
      onClose={onClose}
      title={endpoint ? 'Edit webhook endpoint' : 'Add webhook endpoint'}
      size="lg"
    >
      <form onSubmit={submit}>
        <Stack gap="sm">
          <TextInput
            label="URL"
            description="Herald POSTs JSON here. Private, loopback and link-local addresses are refused."
            placeholder="https://example.com/hooks/herald"
            value={url}
            onChange={(event) => setUrl(event.currentTarget.value)}
            maxLength={2000}
            data-autofocus
          />
          <TextInput
            label="Description (optional)"
            placeholder="CRM sync"
            value={description}
            onChange={(event) => setDescription(event.currentTarget.value)}
            maxLength={200}
          />
          <Checkbox.Group
            label="Events"
            description="Herald sends these changes, up to 100 in one request."
            value={events}
            onChange={(value) => setEvents(value as WebhookEventType[])}
          >
            <SimpleGrid cols={{ base: 1, xs: 2 }} spacing={6} mt="xs">
              {webhookEventTypes.map((type) => (
                <Checkbox key={type} value={type} label={webhookEventLabels[type]} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          {problem && (
            <Text c="red" size="sm" role="alert">
              {problem}
            </Text>
          )}
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending || update.isPending}>
              {endpoint ? 'Save' : 'Add endpoint'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
