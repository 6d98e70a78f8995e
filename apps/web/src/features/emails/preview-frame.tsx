import { emailMessages } from '@herald/contracts';
import { Alert, Box, Paper, Skeleton } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { errorMessage } from '../../lib/api.ts';

/**
 * A rendered email inside an iframe with every sandbox restriction: no scripts, no same origin, no
 * forms, no popups. Whatever the author wrote runs nowhere in the app.
 *
 * While `html` is undefined and there is no error (the first rendering has not come), a placeholder of the frame's
 * size shows; the frame is then made with its document. A frame made empty and given its document a moment later was once seen still
 * empty 15 s after the rendering had come (docs/emails.md, "Preview").
 */
export function PreviewFrame({
  html,
  width,
  height,
  title,
  error,
}: {
  html: string | undefined;
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
        {html === undefined && !error ? (
          <Skeleton height={height} radius={0} role="status" aria-label={`${title}: loading`} />
        ) : (
          <iframe
            title={title}
            sandbox=""
            srcDoc={html ?? ''}
            style={{ display: 'block', width: '100%', height, border: 0, background: '#fff' }}
          />
        )}
      </Paper>
    </Box>
  );
}
