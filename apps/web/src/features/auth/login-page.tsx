import { messages, type SignInResponse } from '@herald/contracts';
import { Alert, Anchor, Button, Divider, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { IconAlertCircle, IconKey } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { errorMessage, isApiError } from '../../lib/api.ts';
import { safeRedirectPath } from '../../lib/format.ts';
import { useConfig } from '../../lib/config.api.ts';
import { useSession } from '../account/account.api.ts';
import { AuthLayout } from './auth-layout.tsx';
import { GoogleButton } from './google-button.tsx';
import { useGoogleLogin, useLogin } from './auth.api.ts';
import { isSecondFactorChallenge, secondFactorPath } from '../two-factor/two-factor.api.ts';
import { useStartSso } from '../sso/sso.api.ts';

function loginErrorText(error: unknown): string {
  if (isApiError(error) && error.statusCode === 0) return error.message;
  return errorMessage(error, messages.couldNotLogIn);
}

export function LoginPage() {
  const [searchParams] = useSearchParams();
  const target = safeRedirectPath(searchParams.get('redirect'), '/');
  const navigate = useNavigate();
  const config = useConfig();
  const session = useSession();
  const login = useLogin();
  const googleLogin = useGoogleLogin();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const startSso = useStartSso();
  // Single sign-on: the email's domain picks the account and its identity provider, which the browser goes to.
  const [isSso, setIsSso] = useState(false);

  if (session.data?.isLoggedIn && !login.isPending && !googleLogin.isPending)
    return <Navigate to={target} replace />;

  // With two-factor on (or required by the account), the password leads to the second step, not in yet.
  const onSignedIn = (result: SignInResponse) =>
    navigate(isSecondFactorChallenge(result) ? secondFactorPath(result, target) : target, { replace: true });

  const onSsoSubmit = () => {
    if (!email.trim()) {
      setFormError('Enter your work email.');
      return;
    }
    setFormError(null);
    startSso.mutate(email.trim(), {
      onSuccess: ({ redirectUrl }) => window.location.assign(redirectUrl),
      onError: (error) => setFormError(errorMessage(error, messages.couldNotLogIn)),
    });
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (isSso) {
      onSsoSubmit();
      return;
    }
    if (!email.trim() || !password) {
      setFormError(messages.missingEmailOrPassword);
      return;
    }
    setFormError(null);
    login.mutate(
      { email: email.trim(), password },
      {
        onSuccess: onSignedIn,
        onError: (error) => {
          setFormError(loginErrorText(error));
          // The domain requires single sign-on: the same email goes on through the provider.
          if (isApiError(error) && error.body.errorCode === 'sso-required') setIsSso(true);
        },
      },
    );
  };

  const onGoogleCredential = (idToken: string) => {
    setFormError(null);
    googleLogin.mutate(idToken, {
      onSuccess: onSignedIn,
      onError: (error) => setFormError(errorMessage(error, messages.errorLoggingIn)),
    });
  };

  return (
    <AuthLayout
      title="Log in to Herald"
      subtitle="Welcome back! Enter your details to continue."
      footer={
        <>
          Don't have an account?{' '}
          <Anchor component={Link} to="/register" fw={500}>
            Sign up
          </Anchor>
        </>
      }
    >
      {config.googleClientId && (
        <>
          <GoogleButton
            clientId={config.googleClientId}
            text="signin_with"
            onCredential={onGoogleCredential}
            onError={(message) => setFormError(message || messages.unknownErrorTryAgain)}
          />
          <Divider label="or" labelPosition="center" />
        </>
      )}
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
          {!isSso && (
            <>
              <PasswordInput
                label="Password"
                autoComplete="current-password"
                value={password}
                onChange={(event) => setPassword(event.currentTarget.value)}
              />
              <Group justify="flex-end" mt={-6}>
                <Anchor component={Link} to="/request-reset-password" size="sm">
                  Forgot password?
                </Anchor>
              </Group>
            </>
          )}
          <Button
            type="submit"
            size="md"
            fullWidth
            loading={login.isPending || googleLogin.isPending || startSso.isPending}
          >
            {isSso ? 'Continue with SSO' : 'Log in'}
          </Button>
          <Button
            variant="default"
            fullWidth
            leftSection={<IconKey size={18} />}
            onClick={() => {
              setFormError(null);
              if (isSso) setIsSso(false);
              else if (email.trim()) onSsoSubmit();
              else setIsSso(true);
            }}
          >
            {isSso ? 'Log in with a password instead' : 'Sign in with SSO'}
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
