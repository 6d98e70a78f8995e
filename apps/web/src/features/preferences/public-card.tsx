import { Alert, Box, Container, Paper } from '@mantine/core';
import { IconAlertCircle, IconInfoCircle } from '@tabler/icons-react';
import type { ReactNode } from 'react';

/** The frame of the public sending pages: a narrow card on a quiet background, readable on a phone. */
export function PublicCard({ children }: { children: ReactNode }) {
  return (
    <Box bg="gray.0" mih="100vh" py={{ base: 'md', sm: 'xl' }}>
      <Container size={560} px={{ base: 'sm', sm: 'md' }}>
        <Paper component="main" withBorder radius="md" p={{ base: 'md', sm: 'xl' }}>
          {children}
        </Paper>
      </Container>
    </Box>
  );
}

/** Shown instead of a recipient's own page when the link came from a test send. */
export function PreviewNote({ children }: { children: ReactNode }) {
  return (
    <Alert variant="light" color="blue" icon={<IconInfoCircle size={18} />} title="This is a preview">
      {children}
    </Alert>
  );
}

/** A link that cannot be used (bad, expired, refused), in the server's words. */
export function LinkProblem({ message }: { message: string }) {
  return (
    <Alert
      variant="light"
      color="red"
      icon={<IconAlertCircle size={18} />}
      role="alert"
      title="This link can’t be used"
    >
      {message}
    </Alert>
  );
}
