import { teamMessages } from '@herald/contracts';
import { ActionIcon, Anchor, List, Modal, Stack, Text, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { useAccountIssues } from '../../features/account/account.api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { notifyError } from '../../lib/notify.ts';

/** The top bar's warning icon and the 'Pending Account Issues' modal; nothing when there are no issues. */
export function AccountIssuesWarning() {
  const issues = useAccountIssues();
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
  // A people-limit issue (plans and billing) pauses nothing; its own text says so and links to the plans.
  const isSendingPaused = list.some((issue) => issue.kind !== 'people-limit');
  const isOverPeopleLimit = list.some((issue) => issue.kind === 'people-limit');

  return (
    <>
      <Tooltip label="Account issues" withArrow>
        <ActionIcon variant="light" color="orange" size="lg" aria-label="Account issues" onClick={modal.open}>
          <IconAlertTriangle size={20} />
        </ActionIcon>
      </Tooltip>
      <Modal opened={isOpen} onClose={modal.close} title="Pending Account Issues" centered>
        <Stack gap="sm">
          {isSendingPaused && (
            <>
              <Text size="sm">
                Email sending from your account is paused because we noticed some unusual activity.
              </Text>
              <Text size="sm">
                If you are on a trial, our support team will be in touch with you shortly. Otherwise, our team
                is reviewing your account manually and your email should go out shortly.
              </Text>
            </>
          )}
          <List size="sm" spacing="xs" aria-label="Issues">
            {list.map((issue) => (
              <List.Item key={issue.id}>
                <Text size="sm" span>
                  {issue.message}
                </Text>{' '}
                <Text size="xs" c="dimmed" span>
                  ({formatDateTime(issue.createdAt)})
                </Text>
              </List.Item>
            ))}
          </List>
          {isOverPeopleLimit && (
            <Anchor component={Link} to="/billing?upgrade=1" size="sm" onClick={modal.close}>
              See larger plans
            </Anchor>
          )}
        </Stack>
      </Modal>
    </>
  );
}
