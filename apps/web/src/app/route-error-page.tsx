import { Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { messages } from '@herald/contracts';
import { useEffect } from 'react';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { handleChunkLoadError, isChunkLoadError, reportError } from './global-errors.ts';

/** Shown when a page throws while rendering; the error is reported once. */
export function RouteErrorPage() {
  const error = useRouteError();
  const message =
    error instanceof Error ? error.message : isRouteErrorResponse(error) ? error.statusText : '';
  const isChunkError = isChunkLoadError(message);

  useEffect(() => {
    if (isChunkError) handleChunkLoadError();
    else reportError(error);
  }, [error, isChunkError]);

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder radius="md" p="xl" maw={480}>
        <Stack gap="md">
          <Title order={2}>Something went wrong</Title>
          <Text c="dimmed">{isChunkError ? messages.chunkLoadError : messages.globalError}</Text>
          <Button onClick={() => window.location.reload()} w="fit-content">
            Reload the page
          </Button>
        </Stack>
      </Paper>
    </Center>
  );
}
