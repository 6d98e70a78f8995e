import { messages, passwordMinLength, type Account } from '@herald/contracts';
import { Anchor, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { FormError } from './form-error.tsx';
import { StepHeading } from './registration-layout.tsx';
import { useSetInitialPassword } from './registration.api.ts';

export function PasswordStep({ onDone }: { onDone: (account: Account) => void }) {
  const [password, setPassword] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const setInitialPassword = useSetInitialPassword();

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!password) {
      setFieldError('Please choose a password.');
      return;
    }
    if (password.length < passwordMinLength) {
      setFieldError(messages.passwordTooShort);
      return;
    }
    setFieldError(null);
    setFormError(null);
    setInitialPassword.mutate(password, {
      onSuccess: onDone,
      onError: (error) => setFormError(errorMessage(error, messages.couldNotSaveCredentials)),
    });
  };

  return (
    <>
      <StepHeading title="Last step, we promise! Choose your password." />
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <FormError>{formError}</FormError>
          <PasswordInput
            label="Password"
            description={messages.passwordHint}
            autoComplete="new-password"
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={fieldError}
            autoFocus
          />
          <Button type="submit" size="md" fullWidth loading={setInitialPassword.isPending}>
            Take me to my account
          </Button>
          <Text size="xs" c="dimmed" ta="center">
            By creating an account you agree to our{' '}
            <Anchor component={Link} to="/public/privacy" target="_blank" size="xs" underline="always">
              privacy policy
            </Anchor>{' '}
            and{' '}
            <Anchor component={Link} to="/public/terms" target="_blank" size="xs" underline="always">
              terms of service
            </Anchor>
            .
          </Text>
        </Stack>
      </form>
    </>
  );
}
