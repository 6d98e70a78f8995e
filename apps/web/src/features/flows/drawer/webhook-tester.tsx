import { WebhookTestAnswer } from '@herald/contracts';
import { Alert, Button, Code, Group, Stack, Text } from '@mantine/core';
import { IconCircleCheck, IconCircleX, IconSend } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { api, errorMessage } from '../../../lib/api.ts';

/**
 * "Send test request" under a Send webhook step's URL: one sample call (a made-up person, `test: true`) to the URL
 * on screen, saved or not, and what the receiver answered. Needs a saved step and flows:write.
 */
export function WebhookTester({ stepId, url }: { stepId: number; url: string }) {
  const test = useMutation({
    mutationFn: () =>
      api.post(`/steps/${stepId}/test-webhook`, { url: url.trim() }, { schema: WebhookTestAnswer }),
  });
  const result = test.data;
  return (
    <Stack gap="xs">
      <Group gap="xs">
        <Button
          variant="default"
          size="xs"
          leftSection={<IconSend size={14} />}
          loading={test.isPending}
          disabled={url.trim() === ''}
          onClick={() => test.mutate()}
        >
          Send test request
        </Button>
        <Text size="xs" c="dimmed">
          A sample person, marked as a test; no one in the flow is involved.
        </Text>
      </Group>
      {test.isError && (
        <Alert color="red" variant="light" role="alert" icon={<IconCircleX size={18} />} title="Not sent">
          {errorMessage(test.error, 'The test request could not be sent.')}
        </Alert>
      )}
      {result && !test.isPending && (
        <Alert
          color={result.ok ? 'teal' : 'red'}
          variant="light"
          role="status"
          icon={result.ok ? <IconCircleCheck size={18} /> : <IconCircleX size={18} />}
          title={
            result.status === null ? 'No answer' : `Answered ${result.status} in ${result.durationMs} ms`
          }
        >
          <Stack gap={6}>
            {result.error && <Text size="sm">{result.error}</Text>}
            {result.responseBody && (
              <Code
                block
                fz="xs"
                style={{ maxHeight: 160, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
              >
                {result.responseBody}
              </Code>
            )}
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}
