import { AppShell, Box } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { LoadingSpinner } from '../../../ui/loading-spinner.tsx';
import { SharedFlowBar } from './shared-flow-bar.tsx';
import type { SharedFlowLink } from './shared-flow-link.ts';

const FlowPage = lazy(() => import('../flow-page.tsx').then((m) => ({ default: m.FlowPage })));

/** A share link opened by someone not logged in: the read-only flow under a bar that offers to copy it. */
export function SharedFlowVisitor({ link }: { link: SharedFlowLink }) {
  return (
    <AppShell header={{ height: 60 }} padding="md">
      <AppShell.Header>
        <SharedFlowBar link={link} isLoggedIn={false} />
      </AppShell.Header>
      <AppShell.Main bg="gray.0">
        <Box maw={1200} mx="auto">
          <Suspense fallback={<LoadingSpinner label="Loading the flow" />}>
            <FlowPage />
          </Suspense>
        </Box>
      </AppShell.Main>
    </AppShell>
  );
}

export default SharedFlowVisitor;
