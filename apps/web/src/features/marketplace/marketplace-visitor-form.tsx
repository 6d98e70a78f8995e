import {
  EmailAddress,
  MarketplaceCode,
  marketplaceMessages,
  messages,
  type RedeemAnswer,
} from '@herald/contracts';
import { Anchor, Button, Divider, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useConfig } from '../../lib/config.api.ts';
import { errorMessage } from '../../lib/api.ts';
import { browserTimeZone } from '../../lib/format.ts';
import { GoogleButton } from '../auth/google-button.tsx';
import { FormError } from '../registration/form-error.tsx';
import { StepHeading } from '../registration/registration-layout.tsx';
import { useRedeemCode } from './marketplace.api.ts';
import { CodeInput } from './code-input.tsx';

export const marketplacePagePath = '/public/register/appsumo';

/** The first step of a marketplace sign-up: the code and an email (or Google) create the account with its plan. */
export function MarketplaceVisitorForm({ onRegistered }: { onRegistered: (answer: RedeemAnswer) => void }) {
  const config = useConfig();
  const redeem = useRedeemCode();
  const [code, setCode] = useState('');
  const [email, setEmail] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const [emailError, setEmailError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);

  /** The code as typed, or null after showing why it cannot be sent. */
  const checkedCode = (): string | null => {
    const parsed = MarketplaceCode.safeParse(code);
    setCodeError(
      parsed.success ? null : (parsed.error.issues[0]?.message ?? marketplaceMessages.missingCode),
    );
    return parsed.success ? parsed.data : null;
  };

  const submit = (registration: { email?: string; idToken?: string }, validCode: string) => {
    setFormError(null);
    redeem.mutate(
      { code: validCode, ...registration, source: 'marketplace', timezone: browserTimeZone() },
      {
        onSuccess: onRegistered,
        onError: (error) => setFormError(errorMessage(error, messages.unknownError)),
      },
    );
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const validCode = checkedCode();
    const trimmed = email.trim();
    const parsedEmail = EmailAddress.safeParse(trimmed);
    const emailProblem = !trimmed
      ? messages.missingRegistrationEmail
      : parsedEmail.success
        ? null
        : (parsedEmail.error.issues[0]?.message ?? 'Enter a valid email address.');
    setEmailError(emailProblem);
    if (validCode && parsedEmail.success) submit({ email: parsedEmail.data }, validCode);
  };

  const onGoogle = (idToken: string) => {
    const validCode = checkedCode();
    if (validCode) submit({ idToken }, validCode);
  };

  const isAlreadyRegistered = formError?.includes(messages.emailAlreadyRegistered) ?? false;

  return (
    <>
      <StepHeading
        title="Redeem your marketplace deal"
        description="Enter the code from your purchase and your email. Your plan is on the account the moment it exists: no trial, no credit card."
      />
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <FormError>
            {formError && (
              <Group gap={6}>
                <Text size="sm">{formError}</Text>
                {isAlreadyRegistered && (
                  <Anchor
                    component={Link}
                    to={`/login?redirect=${encodeURIComponent(marketplacePagePath)}`}
                    size="sm"
                    fw={600}
                  >
                    Login instead?
                  </Anchor>
                )}
              </Group>
            )}
          </FormError>
          <CodeInput value={code} onChange={setCode} error={codeError} />
          <TextInput
            label="Email"
            placeholder="you@company.com"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={emailError}
          />
          <Button type="submit" size="md" fullWidth loading={redeem.isPending}>
            Redeem and create my account
          </Button>
        </Stack>
      </form>
      {config.googleClientId && (
        <Stack gap="md" mt="md">
          <Divider label="or use Google, with the code above" labelPosition="center" />
          <GoogleButton
            clientId={config.googleClientId}
            text="signup_with"
            onCredential={onGoogle}
            onError={(message) => setFormError(message || messages.unknownErrorTryAgain)}
          />
        </Stack>
      )}
      <Stack gap={4} mt="lg" align="center">
        <Text size="sm" c="dimmed" ta="center">
          Already have an account?{' '}
          <Anchor component={Link} to={`/login?redirect=${encodeURIComponent(marketplacePagePath)}`} fw={500}>
            Log in to redeem the code on it
          </Anchor>
        </Text>
        <Text size="sm" c="dimmed" ta="center">
          No code?{' '}
          <Anchor component={Link} to="/register" fw={500}>
            Start a free trial instead
          </Anchor>
        </Text>
      </Stack>
    </>
  );
}
