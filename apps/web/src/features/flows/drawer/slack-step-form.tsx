import { serviceMessages } from '@herald/contracts';
import { Alert, Anchor, Stack, Text, Textarea } from '@mantine/core';
import { IconBrandSlack } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useConnections } from '../../integrations/integrations.api.ts';

/** The “Send Slack message” step: the message, with merge tags, and whether the account's Slack is connected. */
export function SlackStepForm({
  text,
  onChange,
  isReadOnly,
}: {
  text: string;
  onChange: (text: string) => void;
  isReadOnly: boolean;
}) {
  const connections = useConnections();
  const slack = connections.data?.connections.find((c) => c.serviceId === 'slack');
  return (
    <Stack gap="sm">
      {connections.isSuccess && (!slack || slack.status === 'failed') && (
        <Alert color={slack ? 'red' : 'yellow'} variant="light" icon={<IconBrandSlack size={18} />}>
          <Text size="sm">
            {slack ? 'Slack stopped accepting Herald’s messages. ' : 'Slack is not connected yet. '}
            <Anchor component={Link} to="/apps" size="sm">
              {slack ? 'Reconnect Slack' : 'Connect Slack'}
            </Anchor>{' '}
            under Apps before switching this flow on.
          </Text>
        </Alert>
      )}
      {connections.isError && (
        <Text size="sm" c="red">
          {serviceMessages.fieldsFallback.trim()}
        </Text>
      )}
      {slack?.status === 'active' && (
        <Text size="sm" c="dimmed">
          Posts to {slack.label}.
        </Text>
      )}
      <Textarea
        label="Message"
        description="Use {{ person.email }}, {{ person.firstName }} or any field name to fill in the person's values."
        placeholder="New trial: {{ person.email }}"
        autosize
        minRows={3}
        maxRows={8}
        maxLength={3000}
        value={text}
        readOnly={isReadOnly}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
    </Stack>
  );
}
