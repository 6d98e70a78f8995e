import { flowCopyMessages } from '@herald/contracts';
import { Button, Group } from '@mantine/core';
import { IconCopy } from '@tabler/icons-react';
import { useState } from 'react';
import { BrandLogo } from '../../../ui/brand-logo.tsx';
import { CopyFlowDialog } from '../copy-flow-dialog.tsx';
import { useFlow } from '../flows.api.ts';
import { RegisterToCopyDialog } from './register-to-copy-dialog.tsx';
import type { SharedFlowLink } from './shared-flow-link.ts';
import { useIsNarrow } from '../../../lib/use-is-narrow.ts';

/**
 * The top bar while a shared flow is open read-only (docs/flows.md): only 'Copy this flow to your account', which
 * opens the copy dialog for a signed-in user and the register dialog for a visitor.
 */
export function SharedFlowBar({ link, isLoggedIn }: { link: SharedFlowLink; isLoggedIn: boolean }) {
  const [isOpen, setIsOpen] = useState(false);
  const isNarrow = useIsNarrow('phone');
  const flow = useFlow(link.flowId, link.token);
  const name = flow.data?.integration.name;
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
      <BrandLogo withName={!isNarrow} />
      <Button
        leftSection={<IconCopy size={16} />}
        onClick={() => setIsOpen(true)}
        disabled={isLoggedIn && !name}
      >
        {flowCopyMessages.copyToYourAccount}
      </Button>
      {isLoggedIn ? (
        <CopyFlowDialog
          flow={isOpen && name !== undefined ? { id: link.flowId, name } : null}
          shareToken={link.token}
          onClose={() => setIsOpen(false)}
        />
      ) : (
        <RegisterToCopyDialog opened={isOpen} onClose={() => setIsOpen(false)} />
      )}
    </Group>
  );
}
