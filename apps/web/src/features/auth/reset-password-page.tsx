import { messages, passwordMinLength } from '@herald/contracts';
import { Alert, Anchor, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { AuthLayout } from './auth-layout.tsx';
import { useResetPassword } from './auth.api.ts';
import { isSecondFactorChallenge, secondFactorPath } from '../two-factor/two-factor.api.ts';

function RequestNewLink() {
  return (
    <Anchor component={Link} to="/request-reset-password" size="sm" fw={500}>
      Request a new reset link
    </Anchor>
  );
}

export function ResetPasswordPage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token') ?? '';
  const navigate = useNavigate();
  const resetPassword = useResetPassword();
  const [password, setPassword] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [isTokenRejected, setIsTokenRejected] = useState(false);

  const footer = (
    <Anchor component={Link} to="/login" fw={500}>
      Back to login
    </Anchor>
  );

  if (!token) {
    return (
      <AuthLayout title="Choose a new password" footer={footer}>
        <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
          {messages.resetTokenInvalid}
        </Alert>
        <RequestNewLink />
      </AuthLayout>
    );
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (password.length < passwordMinLength) {
      setFormError(messages.passwordTooShort);
      return;
    }
    setFormError(null);
    resetPassword.mutate(
      { token, password },
      {
        onSuccess: (result) => {
          notifications.show({ color: 'teal', message: messages.passwordResetDone });
          // A reset proves the mailbox, not the second factor: with two-factor on, its step comes next.
          navigate(isSecondFactorChallenge(result) ? secondFactorPath(result, '/') : '/', { replace: true });
        },
        onError: (error) => {
          const message = errorMessage(error, messages.resetDefault);
          setFormError(message);
          setIsTokenRejected(/invalid|expired|token/i.test(message));
        },
      },
    );
  };

  return (
    <AuthLayout
      title="Choose a new password"
      subtitle="Pick a password you don't use anywhere else."
      footer={footer}
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          {formError && (
            <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
              <Stack gap={6}>
                <Text size="sm">{formError}</Text>
                {isTokenRejected && <RequestNewLink />}
              </Stack>
            </Alert>
          )}
          <PasswordInput
            label="New password"
            description={messages.passwordHint}
            autoComplete="new-password"
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            autoFocus
          />
          <Button type="submit" size="md" fullWidth loading={resetPassword.isPending}>
            Save new password
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
