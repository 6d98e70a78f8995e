import { emailMessages, type EmailSummary } from '@herald/contracts';
import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useAccount } from '../account/account.api.ts';
import { useDuplicateEmail } from './emails.api.ts';

/**
 * Copy an email: into this account (then open the copy) or, for a user with more than one account,
 * into another of them ('✅ Email copied.', the dialog closes).
 */
export function DuplicateEmailDialog({
  email,
  onClose,
}: {
  email: EmailSummary | null;
  onClose: () => void;
}) {
  const account = useAccount();
  const duplicate = useDuplicateEmail();
  const navigate = useNavigate();
  const currentId = account.data?.accountId;
  const accounts = account.data?.allAccounts ?? [];
  const [target, setTarget] = useState<string | null>(currentId ? String(currentId) : null);
  useEffect(() => {
    if (email) setTarget(currentId ? String(currentId) : null);
  }, [email, currentId]);

  const options = [...accounts]
    .sort((a, b) => (a.id === currentId ? -1 : b.id === currentId ? 1 : 0))
    .map((item) => ({
      value: String(item.id),
      label: `${item.name || item.site || `Account ${item.id}`}${item.id === currentId ? ' (this account)' : ''}`,
    }));

  const copy = () => {
    if (!email) return;
    const targetAccountId = target && Number(target) !== currentId ? Number(target) : undefined;
    duplicate.mutate(
      { emailId: email.id, ...(targetAccountId ? { targetAccountId } : {}) },
      {
        onSuccess: ({ email: copyOf }) => {
          onClose();
          if (targetAccountId) notifySuccess(`✅ ${emailMessages.copied}`);
          else void navigate(`/emails/${copyOf.id}`);
        },
        onError: (error) =>
          notifyError(error, emailMessages.copyError(errorMessage(error, emailMessages.copyFallback))),
      },
    );
  };

  return (
    <Modal opened={email !== null} onClose={onClose} title="Copy email">
      <Stack gap="md">
        {accounts.length > 1 ? (
          <Select
            label="Copy this email to:"
            data={options}
            value={target}
            onChange={setTarget}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
          />
        ) : (
          <Text size="sm">Are you sure you want to copy this email?</Text>
        )}
        <Text size="sm" c="dimmed">
          The copy is named “{emailMessages.copyPrefix}
          {email?.name}” and starts without stats.
        </Text>
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={copy} loading={duplicate.isPending}>
            Copy Email
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
