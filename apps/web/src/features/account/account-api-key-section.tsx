import { teamMessages } from '@herald/contracts';
import { Alert, Button, Code, Group, Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconAlertTriangle, IconKey } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { formatRelative } from '../../lib/format.ts';
import { notifyError } from '../../lib/notify.ts';
import { CopyButton } from '../../ui/copy-button.tsx';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { apiKeyInfoKey, useApiKeyInfo } from '../sessions/sessions.api.ts';
import { Section } from './account-section.tsx';
import { useRotateApiKey } from './account.api.ts';

/** Whether the key is in use: its last characters and its last call (at most a minute old). */
function ApiKeyUse() {
  const info = useApiKeyInfo();
  if (info.isPending) return <LoadingSpinner size="sm" label="Loading the API key's use" />;
  if (info.isError)
    return (
      <LoadError
        message={errorMessage(info.error, "Couldn't load the API key's use.")}
        onRetry={() => void info.refetch()}
      />
    );
  if (!info.data.hint)
    return (
      <Text size="sm" c="dimmed">
        No API key yet.
      </Text>
    );
  return (
    <Text size="sm">
      Key ending in <Code>{info.data.hint}</Code>:{' '}
      {info.data.lastUsedAt ? `last used ${formatRelative(info.data.lastUsedAt)}` : 'never used'}.
    </Text>
  );
}

/** The account page's API key section: rotating the key, and the new key shown once. */
export function AccountApiKeySection() {
  const rotate = useRotateApiKey();
  const queryClient = useQueryClient();
  const [newKey, setNewKey] = useState<string | null>(null);

  const confirmRotate = () =>
    modals.openConfirmModal({
      title: 'Rotate API key?',
      children: (
        <Text size="sm">
          A new API key replaces the current one. The old key stops working right away, so every integration
          using it needs the new key.
        </Text>
      ),
      labels: { confirm: 'Rotate API key', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        rotate.mutate(undefined, {
          onSuccess: (result) => {
            setNewKey(result.apiKey);
            void queryClient.invalidateQueries({ queryKey: apiKeyInfoKey });
          },
          onError: (error) => notifyError(error, teamMessages.couldNotRotateApiKey),
        }),
    });

  return (
    <Section
      title="API key"
      description="The secret key for Herald's API. It is shown only once, when it is created."
    >
      {newKey && (
        <Alert
          color="orange"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          title="Copy your new API key now"
        >
          <Stack gap="xs">
            <Text size="sm">This is the only time it is shown. The old key no longer works.</Text>
            <Group gap={4} wrap="nowrap">
              <Code style={{ wordBreak: 'break-all' }} data-testid="new-api-key">
                {newKey}
              </Code>
              <CopyButton value={newKey} label="Copy API key" />
            </Group>
          </Stack>
        </Alert>
      )}
      <ApiKeyUse />
      <Button
        leftSection={<IconKey size={16} />}
        variant="default"
        w="fit-content"
        onClick={confirmRotate}
        loading={rotate.isPending}
      >
        Rotate API key
      </Button>
    </Section>
  );
}
