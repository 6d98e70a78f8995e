import { emailLimits, emailMessages, type EmailDraft } from '@herald/contracts';
import { Button, Group, Modal, Stack, TagsInput, Text } from '@mantine/core';
import { useState } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useSendTestEmail } from './emails.api.ts';
import { addressProblem } from './email-draft.ts';
import { PersonPicker } from './person-picker.tsx';

/** Send the draft, unsaved changes included, to up to five inboxes, rendered as a person or sample data. */
export function SendTestDialog({
  opened,
  onClose,
  draft,
  defaultAddress,
}: {
  opened: boolean;
  onClose: () => void;
  draft: EmailDraft;
  defaultAddress: string;
}) {
  const [chosen, setChosen] = useState<string[]>(defaultAddress ? [defaultAddress] : []);
  const [personId, setPersonId] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [typing, setTyping] = useState('');
  const send = useSendTestEmail();

  const submit = () => {
    // An address still being typed counts, as if Enter had been pressed.
    const pending = typing
      .split(/[,;\s]+/)
      .map((part) => part.trim())
      .filter(Boolean);
    const addresses = [...new Set([...chosen, ...pending])];
    if (pending.length > 0) {
      setChosen(addresses);
      setTyping('');
    }
    const invalid = addresses.find((address) => addressProblem(address) !== null);
    if (addresses.length === 0) return setError(emailMessages.noTestRecipients);
    if (addresses.length > emailLimits.maxTestRecipients)
      return setError(emailMessages.tooManyTestRecipients(emailLimits.maxTestRecipients));
    if (invalid) return setError(`“${invalid}” is not a valid email address.`);
    setError(null);
    send.mutate(
      { email: draft, sendTo: addresses, ...(personId ? { personId } : {}) },
      {
        onSuccess: ({ message }) => {
          notifySuccess(`✅ ${message}`);
          onClose();
        },
        onError: (failure) => notifyError(failure, emailMessages.testError, { id: 'email-test' }),
      },
    );
  };

  return (
    <Modal opened={opened} onClose={onClose} title="Send a test email">
      <Stack gap="md">
        <TagsInput
          label="Send to"
          description={`Up to ${emailLimits.maxTestRecipients} addresses. Press Enter or comma after each.`}
          placeholder="you@example.com"
          value={chosen}
          onChange={(value) => {
            setChosen([
              ...new Set(value.map((item) => item.replace(/^[,;\s]+|[,;\s]+$/g, '')).filter(Boolean)),
            ]);
            setError(null);
          }}
          searchValue={typing}
          onSearchChange={setTyping}
          splitChars={[',', ' ', ';']}
          // Sending takes what is still typed; adding it on blur would move the buttons under the pointer.
          acceptValueOnBlur={false}
          error={error}
          clearable
          data-autofocus
        />
        <PersonPicker label="Personalise as" value={personId} onChange={setPersonId} />
        <Text size="xs" c="dimmed">
          The subject starts with [Test]. Unsubscribe links in a test open the preferences page without
          unsubscribing anyone.
        </Text>
        {send.isError && (
          <Text size="sm" c="red">
            {errorMessage(send.error, emailMessages.testError)}
          </Text>
        )}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={submit} loading={send.isPending}>
            Send test
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
