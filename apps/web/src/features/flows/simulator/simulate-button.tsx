import { Button } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import { useState } from 'react';
import { useSessionFlowId } from '../use-session-flow-id.ts';
import { SimulateDrawer } from './simulate-drawer.tsx';

/** The flow page's "Test run" button (not through a share link: a test run needs a session). */
export function SimulateButton() {
  const flowId = useSessionFlowId();
  const [isOpen, setIsOpen] = useState(false);
  if (flowId === null) return null;
  return (
    <>
      <Button
        variant="default"
        size="xs"
        leftSection={<IconPlayerPlay size={16} aria-hidden />}
        onClick={() => setIsOpen(true)}
      >
        Test run
      </Button>
      <SimulateDrawer flowId={flowId} opened={isOpen} onClose={() => setIsOpen(false)} />
    </>
  );
}
