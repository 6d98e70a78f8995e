import { messages, passwordMinLength, sessionMessages } from '@herald/contracts';
import { Alert, Button, Card, Group, PasswordInput, Stack, Title } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { notifySuccess } from '../../lib/notify.ts';
import { useChangePassword } from './sessions.api.ts';

/** The profile's password change: the current password, a strong new one; the other sessions are signed out. */
export function ChangePasswordSection() {
  const change = useChangePassword();
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [formError, setFormError] = useState<string | null>(null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (change.isPending) return;
    if (!currentPassword) {
      setFormError('Enter your current password.');
      return;
    }
    if (newPassword.length < passwordMinLength) {
      setFormError(messages.passwordTooShort);
      return;
    }
    setFormError(null);
    change.mutate(
      { currentPassword, newPassword },
      {
        onSuccess: () => {
          setCurrentPassword('');
          setNewPassword('');
          notifySuccess(sessionMessages.passwordChanged);
        },
        onError: (error) => setFormError(errorMessage(error, sessionMessages.passwordChangeFailed)),
      },
    );
  };

  return (
    <Card withBorder radius="md" p="lg">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <Title order={2} fz="lg">
            Password
          </Title>
          {formError && (
            <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
              {formError}
            </Alert>
          )}
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            value={currentPassword}
            onChange={(event) => setCurrentPassword(event.currentTarget.value)}
          />
          <PasswordInput
            label="New password"
            description={`${messages.passwordHint} Your other sessions will be signed out.`}
            autoComplete="new-password"
            value={newPassword}
            onChange={(event) => setNewPassword(event.currentTarget.value)}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={change.isPending}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
