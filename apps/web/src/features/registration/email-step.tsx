import { EmailAddress, messages } from '@herald/contracts';
import { Anchor, Button, Divider, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { browserTimeZone } from '../../lib/format.ts';
import { useConfig } from '../../lib/config.api.ts';
import { GoogleButton } from '../auth/google-button.tsx';
import { FormError } from './form-error.tsx';
import { StepHeading } from './registration-layout.tsx';
import { useCreateAccount } from './registration.api.ts';

/** First step: creates the account from an email or a Google sign-up. */
export function EmailStep({ onDone }: { onDone: () => void }) {
  const config = useConfig();
  const createAccount = useCreateAccount();
  const [email, setEmail] = useState('');
  const [formError, setFormError] = useState<string | null>(null);

  const create = (body: { email?: string; idToken?: string }) => {
    setFormError(null);
    createAccount.mutate(
      { ...body, source: 'web', timezone: browserTimeZone() },
      { onSuccess: onDone, onError: (error) => setFormError(errorMessage(error, messages.unknownError)) },
    );
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = email.trim();
    if (!trimmed) {
      setFormError(messages.missingRegistrationEmail);
      return;
    }
    const parsed = EmailAddress.safeParse(trimmed);
    if (!parsed.success) {
      setFormError(parsed.error.issues[0]?.message ?? 'Enter a valid email address.');
      return;
    }
    create({ email: parsed.data });
  };

  const isAlreadyRegistered = formError?.includes(messages.emailAlreadyRegistered) ?? false;

  return (
    <>
      <StepHeading
        title="Start your free trial"
        description="14 days with every feature. No credit card required."
      />
      <Stack gap="md">
        {config.googleClientId && (
          <>
            <GoogleButton
              clientId={config.googleClientId}
              text="signup_with"
              onCredential={(idToken) => create({ idToken })}
              onError={(message) => setFormError(message || messages.unknownErrorTryAgain)}
            />
            <Divider label="or sign up with your email" labelPosition="center" />
          </>
        )}
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="md">
            <FormError>
              {formError && (
                <Group gap={6}>
                  <Text size="sm">{formError}</Text>
                  {isAlreadyRegistered && (
                    <Anchor component={Link} to="/login" size="sm" fw={600}>
                      Login instead?
                    </Anchor>
                  )}
                </Group>
              )}
            </FormError>
            <TextInput
              label="Email"
              placeholder="you@company.com"
              type="email"
              autoComplete="email"
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
              autoFocus
            />
            <Button type="submit" size="md" fullWidth loading={createAccount.isPending}>
              Convert More Leads
            </Button>
          </Stack>
        </form>
        <Text size="sm" c="dimmed" ta="center">
          Already have an account?{' '}
          <Anchor component={Link} to="/login" fw={500}>
            Login
          </Anchor>
        </Text>
      </Stack>
    </>
  );
}
