import { Button } from '@mantine/core';
import { IconHistory } from '@tabler/icons-react';
import { useState } from 'react';
import { useSessionFlowId } from '../use-session-flow-id.ts';
import { VersionsDrawer } from './versions-drawer.tsx';

/** The flow page's "Versions" button (not on a flow opened through a share link: versions need a session). */
export function VersionsButton() {
  const flowId = useSessionFlowId();
  const [isOpen, setIsOpen] = useState(false);
  if (flowId === null) return null;
  return (
    <>
      <Button
        variant="default"
        size="xs"
        leftSection={<IconHistory size={16} aria-hidden />}
        onClick={() => setIsOpen(true)}
      >
        Versions
      </Button>
      <VersionsDrawer flowId={flowId} opened={isOpen} onClose={() => setIsOpen(false)} />
    </>
  );
}
