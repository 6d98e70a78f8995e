import { messages } from '@herald/contracts';
import { Alert, Anchor, Button, Stack, TextInput } from '@mantine/core';
import { IconAlertCircle, IconMailCheck } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { useConfig } from '../../lib/config.api.ts';
import { AuthLayout } from './auth-layout.tsx';
import { useRequestPasswordReset } from './auth.api.ts';

export function RequestResetPasswordPage() {
  const requestReset = useRequestPasswordReset();
  const config = useConfig();
  const [email, setEmail] = useState('');
  const [formError, setFormError] = useState<string | null>(null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!email.trim()) {
      setFormError('Enter the email address of your account.');
      return;
    }
    setFormError(null);
    requestReset.mutate(email.trim(), {
      onError: (error) => setFormError(errorMessage(error, messages.resetDefault)),
    });
  };

  const footer = (
    <Anchor component={Link} to="/login" fw={500}>
      Back to login
    </Anchor>
  );

  if (requestReset.isSuccess) {
    return (
      <AuthLayout title="Check your email" footer={footer}>
        <Alert color="teal" variant="light" icon={<IconMailCheck size={18} />} role="status">
          {requestReset.data.message || messages.resetRequested}
        </Alert>
        {config.devMailbox && (
          <Anchor component={Link} to="/dev/mailbox" size="sm">
            Open the development mailbox
          </Anchor>
        )}
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title="Reset your password"
      subtitle="Enter the email you signed up with and we'll send you a link to choose a new password."
      footer={footer}
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          {formError && (
            <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
              {formError}
            </Alert>
          )}
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            autoFocus
          />
          <Button type="submit" size="md" fullWidth loading={requestReset.isPending}>
            Send reset link
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
