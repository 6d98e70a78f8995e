import { Button } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { SimulateDrawer } from './simulate-drawer.tsx';

/** The flow page's "Test run" button (not through a share link: a test run needs a session). */
export function SimulateButton() {
  const { id } = useParams();
  const [searchParams] = useSearchParams();
  const [isOpen, setIsOpen] = useState(false);
  const flowId = Number(id);
  if (!Number.isInteger(flowId) || flowId <= 0 || searchParams.get('flow-read-auth') !== null) return null;
  return (
    <>
      <Button variant="default" size="xs" leftSection={<IconPlayerPlay size={16} aria-hidden />} onClick={() => setIsOpen(true)}>
        Test run
      </Button>
      <SimulateDrawer flowId={flowId} opened={isOpen} onClose={() => setIsOpen(false)} />
    </>
  );
}
