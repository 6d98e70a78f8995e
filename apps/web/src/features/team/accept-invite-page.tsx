import { messages, passwordMinLength, teamMessages, type SignInResponse } from '@herald/contracts';
import { Alert, Anchor, Button, Center, Divider, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useConfig } from '../../lib/config.api.ts';
import { errorMessage } from '../../lib/api.ts';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { AuthLayout } from '../auth/auth-layout.tsx';
import { GoogleButton } from '../auth/google-button.tsx';
import { isSecondFactorChallenge, secondFactorPath } from '../two-factor/two-factor.api.ts';
import { useAcceptInvitation, useInvitationInfo } from './team.api.ts';

const loginLink = (
  <Anchor component={Link} to="/login" fw={500}>
    Go to login
  </Anchor>
);

function InvalidInvitation({ message }: { message: string }) {
  return (
    <AuthLayout title="Invitation" footer={loginLink}>
      <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
        {message}
      </Alert>
    </AuthLayout>
  );
}

/** /public/accept-invite?token=: join an account from an invitation email. */
export function AcceptInvitePage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token') ?? '';
  const navigate = useNavigate();
  const config = useConfig();
  const info = useInvitationInfo(token);
  const accept = useAcceptInvitation();
  const [password, setPassword] = useState('');
  const [formError, setFormError] = useState<string | null>(null);

  if (!token) return <InvalidInvitation message={teamMessages.invitationInvalid} />;
  if (info.isPending) {
    return (
      <AuthLayout title="Invitation">
        <LoadingSpinner label="Loading your invitation" />
      </AuthLayout>
    );
  }
  if (info.isError)
    return <InvalidInvitation message={errorMessage(info.error, teamMessages.invitationInvalid)} />;

  const { accountName, email, inviterName, needsPassword } = info.data;
  const accountLabel = accountName || 'the account';

  const onAccepted = (result: SignInResponse) =>
    navigate(isSecondFactorChallenge(result) ? secondFactorPath(result, '/') : '/', { replace: true });
  const onFailed = (error: unknown) =>
    setFormError(errorMessage(error, 'We couldn’t accept this invitation. Please try again.'));

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (accept.isPending) return;
    if (needsPassword && password.length < passwordMinLength) {
      setFormError(`Password must be at least ${passwordMinLength} characters.`);
      return;
    }
    if (!needsPassword && !password) {
      setFormError(`Enter the password you use to sign in as ${email}.`);
      return;
    }
    setFormError(null);
    accept.mutate({ token, password }, { onSuccess: onAccepted, onError: onFailed });
  };

  const subtitle = inviterName
    ? `${inviterName} invited ${email} to work on ${accountLabel}.`
    : `You were invited as ${email} to work on ${accountLabel}.`;

  return (
    <AuthLayout
      title={`Join ${accountLabel}`}
      subtitle={subtitle}
      footer={
        needsPassword ? null : (
          <Anchor component={Link} to="/request-reset-password" fw={500}>
            Forgot your password?
          </Anchor>
        )
      }
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          {formError && (
            <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
              {formError}
            </Alert>
          )}
          <TextInput label="Email" value={email} readOnly variant="filled" autoComplete="username" />
          <PasswordInput
            label="Password"
            description={
              needsPassword ? messages.passwordHint : 'You already have a Herald login: enter its password.'
            }
            autoComplete={needsPassword ? 'new-password' : 'current-password'}
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            autoFocus
          />
          <Button type="submit" size="md" fullWidth loading={accept.isPending}>
            Accept invitation
          </Button>
          {config.googleClientId && (
            <>
              <Divider label="or" labelPosition="center" />
              <Center>
                <GoogleButton
                  clientId={config.googleClientId}
                  text="continue_with"
                  onCredential={(idToken) =>
                    accept.mutate({ token, idToken }, { onSuccess: onAccepted, onError: onFailed })
                  }
                  onError={setFormError}
                />
              </Center>
            </>
          )}
          <Text size="xs" c="dimmed" ta="center">
            By joining you agree to the{' '}
            <Anchor component={Link} to="/public/terms" size="xs" underline="always">
              terms of service
            </Anchor>
            .
          </Text>
        </Stack>
      </form>
    </AuthLayout>
  );
}
