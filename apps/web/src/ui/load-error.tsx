import { Alert, Button, Stack, Text } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';

/** What failed to load, and a way to try again. */
export function LoadError({
  message,
  title,
  onRetry,
}: {
  message: string;
  title?: string;
  onRetry: () => void;
}) {
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert" title={title}>
      <Stack gap="xs">
        {message !== title && <Text size="sm">{message}</Text>}
        <Button size="xs" variant="light" color="red" w="fit-content" onClick={onRetry}>
          Try again
        </Button>
      </Stack>
    </Alert>
  );
}
