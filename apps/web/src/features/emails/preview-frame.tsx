import { emailMessages } from '@herald/contracts';
import { Alert, Box, Paper, Skeleton } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { errorMessage } from '../../lib/api.ts';

/**
 * A rendered email inside an iframe with every sandbox restriction: no scripts, no same origin, no
 * forms, no popups. Whatever the author wrote runs nowhere in the app.
 *
 * While `html` is undefined and there is no error (the first rendering has not come), a loading skeleton of the frame's
 * size shows; the frame is then made with its document, and made again for each new document rather than given it in
 * place. A frame given a new document in place was twice seen still showing the old one 15 s later (docs/emails.md,
 * "Preview"); a frame made anew loads its document as it appears, and looks the same to the reader.
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
            key={documentKey(html ?? '')}
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

/** A short key of a document (FNV-1a, 32 bits), so that each new document makes its frame anew. */
function documentKey(html: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < html.length; i++) {
    hash ^= html.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `${html.length}:${(hash >>> 0).toString(36)}`;
}
