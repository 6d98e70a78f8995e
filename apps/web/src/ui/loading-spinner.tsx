import { Center, Loader, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { messages } from '@herald/contracts';
import { useEffect, useState } from 'react';

/** Spinner time-out (docs/web-app.md). */
export const spinnerTimeoutMs = 30_000;

interface LoadingSpinnerProps {
  label?: string;
  size?: 'sm' | 'md' | 'lg';
}

/** A spinner that turns into an error icon and message when loading takes more than 30 s. */
export function LoadingSpinner({ label = 'Loading', size = 'md' }: LoadingSpinnerProps) {
  const [hasTimedOut, setHasTimedOut] = useState(false);

  useEffect(() => {
    const timer = setTimeout(() => setHasTimedOut(true), spinnerTimeoutMs);
    return () => clearTimeout(timer);
  }, []);

  if (hasTimedOut) {
    return (
      <Stack align="center" gap="xs" role="alert">
        <ThemeIcon color="red" variant="light" size="xl" radius="xl">
          <IconAlertTriangle size={22} />
        </ThemeIcon>
        <Text c="dimmed" size="sm" ta="center">
          {messages.loadingTooLong}
        </Text>
      </Stack>
    );
  }
  return (
    <Center>
      <Loader size={size} aria-label={label} role="status" />
    </Center>
  );
}
