import { EmailAddress, normaliseTag } from '@herald/contracts';
import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useCreatePerson } from './people.api.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

export const personMessages = {
  added: '✅ Person added.',
  addFailed: "Couldn't add this person.",
} as const;

/** 'Add person': Email, First name, Last name and Tags (comma-separated), POST /v1/people/?source=manual. */
export function AddPersonModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const isSmall = useIsNarrow('phone');
  return (
    <Modal opened={opened} onClose={onClose} title="Add person" centered fullScreen={isSmall}>
      {opened && <AddPersonForm onClose={onClose} />}
    </Modal>
  );
}

function AddPersonForm({ onClose }: { onClose: () => void }) {
  const create = useCreatePerson();
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [tags, setTags] = useState('');
  const [isSubmitted, setIsSubmitted] = useState(false);
  const emailCheck = EmailAddress.safeParse(email);
  const emailError =
    isSubmitted && !emailCheck.success
      ? (emailCheck.error.issues[0]?.message ?? 'Enter a valid email address.')
      : null;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setIsSubmitted(true);
    if (!emailCheck.success) return;
    const tagList = tags.split(',').map(normaliseTag).filter(Boolean);
    create.mutate(
      {
        email: emailCheck.data,
        ...(firstName.trim() ? { firstName: firstName.trim() } : {}),
        ...(lastName.trim() ? { lastName: lastName.trim() } : {}),
        ...(tagList.length ? { tags: tagList.join(', ') } : {}),
      },
      {
        onSuccess: () => {
          notifySuccess(personMessages.added);
          onClose();
        },
        onError: (error) => notifyError(error, personMessages.addFailed),
      },
    );
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <TextInput
          label="Email"
          type="email"
          required
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          error={emailError}
          maxLength={254}
          data-autofocus
          autoComplete="off"
        />
        <Group grow gap="sm" wrap="wrap">
          <TextInput
            label="First name"
            value={firstName}
            onChange={(e) => setFirstName(e.currentTarget.value)}
            maxLength={5000}
            autoComplete="off"
          />
          <TextInput
            label="Last name"
            value={lastName}
            onChange={(e) => setLastName(e.currentTarget.value)}
            maxLength={5000}
            autoComplete="off"
          />
        </Group>
        <TextInput
          label="Tags"
          description="Separate tags with commas."
          placeholder="customer, newsletter"
          value={tags}
          onChange={(e) => setTags(e.currentTarget.value)}
          maxLength={2000}
          autoComplete="off"
        />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Add person
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
