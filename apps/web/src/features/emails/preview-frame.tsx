import { emailMessages } from '@herald/contracts';
import { Alert, Box, Paper } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { errorMessage } from '../../lib/api.ts';

/**
 * A rendered email inside an iframe with every sandbox restriction: no scripts, no same origin, no
 * forms, no popups. Whatever the author wrote runs nowhere in the app.
 */
export function PreviewFrame({
  html,
  width,
  height,
  title,
  error,
}: {
  html: string;
  width: number | string;
  height: number;
  title: string;
  error?: unknown;
}) {
  return (
    <Box>
      {Boolean(error) && (
        <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} mb="xs">
          {errorMessage(error, emailMessages.retrieveFallback)}
        </Alert>
      )}
      <Paper
        withBorder
        radius="md"
        mx="auto"
        w={width}
        maw="100%"
        style={{ overflow: 'hidden', transition: 'width 150ms ease' }}
      >
        <iframe
          title={title}
          sandbox=""
          srcDoc={html}
          style={{ display: 'block', width: '100%', height, border: 0, background: '#fff' }}
        />
      </Paper>
    </Box>
  );
}
