import { teamMessages } from '@herald/contracts';
import { ActionIcon } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { useAccountIssues } from '../../features/account/account.api.ts';
import { notifyError } from '../../lib/notify.ts';
import { DeferredHint } from './deferred.tsx';
import { useShellPopups } from './shell-popups-loader.ts';

/**
 * The top bar's warning icon and the 'Pending Account Issues' dialog (account-issues-modal.tsx, with the bar's other
 * popups); nothing when there are no issues. A click before the dialog's chunk is there opens it when it arrives.
 */
export function AccountIssuesWarning() {
  const issues = useAccountIssues();
  const popups = useShellPopups();
  const [isOpen, modal] = useDisclosure(false);
  const hasWarned = useRef(false);

  // One toast for a failure, not one per retry or refetch.
  useEffect(() => {
    if (!issues.isError || hasWarned.current) return;
    hasWarned.current = true;
    notifyError(issues.error, teamMessages.couldNotRetrieveIssues, { id: 'account-issues-error' });
  }, [issues.isError, issues.error]);

  const list = issues.data?.issues ?? [];
  if (list.length === 0) return null;

  return (
    <>
      <DeferredHint label="Account issues">
        <ActionIcon variant="light" color="orange" size="lg" aria-label="Account issues" onClick={modal.open}>
          <IconAlertTriangle size={20} />
        </ActionIcon>
      </DeferredHint>
      {popups && <popups.AccountIssuesModal issues={list} opened={isOpen} onClose={modal.close} />}
    </>
  );
}
