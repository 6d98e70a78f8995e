import { twoFactorMessages } from '@herald/contracts';
import { Alert, Anchor, Button, Checkbox, Stack, TextInput } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { safeRedirectPath } from '../../lib/format.ts';
import { AuthLayout } from '../auth/auth-layout.tsx';
import { CodeInput, cleanCode } from './setup-panel.tsx';
import { useSecondFactorSignIn } from './two-factor.api.ts';

/** /login/two-factor: the sign-in's second step, a code from the app or a recovery code. */
export function SignInCodePage() {
  const [searchParams] = useSearchParams();
  const target = safeRedirectPath(searchParams.get('redirect'), '/');
  const navigate = useNavigate();
  const signIn = useSecondFactorSignIn();
  const [isRecovery, setIsRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [recoveryCode, setRecoveryCode] = useState('');
  const [rememberDevice, setRememberDevice] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [isExpired, setIsExpired] = useState(false);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (signIn.isPending) return;
    if (!isRecovery && !/^\d{6}$/.test(cleanCode(code))) {
      setFormError('Enter the 6-digit code from your authenticator app.');
      return;
    }
    if (isRecovery && !recoveryCode.trim()) {
      setFormError('Enter one of your recovery codes.');
      return;
    }
    setFormError(null);
    signIn.mutate(
      isRecovery
        ? { recoveryCode: recoveryCode.trim(), rememberDevice }
        : { code: cleanCode(code), rememberDevice },
      {
        onSuccess: () => navigate(target, { replace: true }),
        onError: (error) => {
          const message = errorMessage(error, twoFactorMessages.wrongCode);
          setIsExpired(message === twoFactorMessages.pendingExpired);
          setFormError(message);
        },
      },
    );
  };

  return (
    <AuthLayout
      title="Two-factor sign-in"
      subtitle={
        isRecovery
          ? 'Enter one of the recovery codes you saved when you set up two-factor sign-in.'
          : 'Open your authenticator app and enter the 6-digit code it shows for Herald.'
      }
      footer={
        <Anchor component={Link} to="/login" fw={500}>
          Back to login
        </Anchor>
      }
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          {formError && (
            <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
              {formError}
              {isExpired && (
                <>
                  {' '}
                  <Anchor component={Link} to="/login" size="sm">
                    Log in again
                  </Anchor>
                </>
              )}
            </Alert>
          )}
          {isRecovery ? (
            <TextInput
              key="recovery"
              label="Recovery code"
              placeholder="xxxxx-xxxxx"
              autoComplete="off"
              value={recoveryCode}
              onChange={(event) => setRecoveryCode(event.currentTarget.value)}
              autoFocus
            />
          ) : (
            <CodeInput key="code" value={code} onChange={setCode} autoFocus />
          )}
          <Checkbox
            label="Remember this device for 30 days"
            checked={rememberDevice}
            onChange={(event) => setRememberDevice(event.currentTarget.checked)}
          />
          <Button type="submit" size="md" fullWidth loading={signIn.isPending}>
            Verify
          </Button>
          <Button
            variant="subtle"
            size="sm"
            onClick={() => {
              setIsRecovery(!isRecovery);
              setFormError(null);
            }}
          >
            {isRecovery ? 'Use a code from the app instead' : 'Use a recovery code instead'}
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
