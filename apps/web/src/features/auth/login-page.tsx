import { messages } from '@herald/contracts';
import { Alert, Anchor, Button, Divider, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { errorMessage, isApiError } from '../../lib/api.ts';
import { safeRedirectPath } from '../../lib/format.ts';
import { useConfig } from '../../lib/config.api.ts';
import { useSession } from '../account/account.api.ts';
import { AuthLayout } from './auth-layout.tsx';
import { GoogleButton } from './google-button.tsx';
import { useGoogleLogin, useLogin } from './auth.api.ts';

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

  if (session.data?.isLoggedIn && !login.isPending && !googleLogin.isPending)
    return <Navigate to={target} replace />;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!email.trim() || !password) {
      setFormError(messages.missingEmailOrPassword);
      return;
    }
    setFormError(null);
    login.mutate(
      { email: email.trim(), password },
      {
        onSuccess: () => navigate(target, { replace: true }),
        onError: (error) => setFormError(loginErrorText(error)),
      },
    );
  };

  const onGoogleCredential = (idToken: string) => {
    setFormError(null);
    googleLogin.mutate(idToken, {
      onSuccess: () => navigate(target, { replace: true }),
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
          <Button type="submit" size="md" fullWidth loading={login.isPending || googleLogin.isPending}>
            Log in
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
