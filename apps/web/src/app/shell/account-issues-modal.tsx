import type { AccountIssue } from '@herald/contracts';
import { Anchor, List, Modal, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatDateTime } from '../../lib/format.ts';

/** 'Pending Account Issues': what paused sending, or the people limit, with a link to larger plans. */
export function AccountIssuesModal({
  issues,
  opened,
  onClose,
}: {
  issues: AccountIssue[];
  opened: boolean;
  onClose: () => void;
}) {
  // A people-limit issue (plans and billing) pauses nothing; its own text says so and links to the plans.
  const isSendingPaused = issues.some((issue) => issue.kind !== 'people-limit');
  const isOverPeopleLimit = issues.some((issue) => issue.kind === 'people-limit');
  return (
    <Modal opened={opened} onClose={onClose} title="Pending Account Issues" centered>
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
          {issues.map((issue) => (
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
          <Anchor component={Link} to="/billing?upgrade=1" size="sm" onClick={onClose}>
            See larger plans
          </Anchor>
        )}
      </Stack>
    </Modal>
  );
}
