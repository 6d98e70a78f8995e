import { twoFactorMessages } from '@herald/contracts';
import { Alert, Anchor, Button, Checkbox, Stack } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { safeRedirectPath } from '../../lib/format.ts';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { AuthLayout } from '../auth/auth-layout.tsx';
import { RecoveryCodesPanel } from './recovery-codes.tsx';
import { SetupPanel } from './setup-panel.tsx';
import { useConfirmSignInEnrolment, useSignInEnrolmentSetup } from './two-factor.api.ts';

/** /login/two-factor/setup: an account the user belongs to requires two-factor; set it up to finish signing in. */
export function SignInSetupPage() {
  const [searchParams] = useSearchParams();
  const target = safeRedirectPath(searchParams.get('redirect'), '/');
  const navigate = useNavigate();
  const setup = useSignInEnrolmentSetup();
  const confirm = useConfirmSignInEnrolment();
  const [rememberDevice, setRememberDevice] = useState(false);
  const { mutate: startSetup } = setup;
  const hasStarted = useRef(false);

  // One setup per visit: a second would replace the secret the QR code shows.
  useEffect(() => {
    if (hasStarted.current) return;
    hasStarted.current = true;
    startSetup();
  }, [startSetup]);

  const footer = (
    <Anchor component={Link} to="/login" fw={500}>
      Back to login
    </Anchor>
  );

  if (confirm.data) {
    return (
      <AuthLayout title="Two-factor sign-in is on">
        <RecoveryCodesPanel codes={confirm.data.recoveryCodes}>
          <Button onClick={() => navigate(target, { replace: true })}>I saved my codes, continue</Button>
        </RecoveryCodesPanel>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title="Set up two-factor sign-in"
      subtitle="Your team requires a code from an authenticator app at every sign-in. Set it up once to continue."
      footer={footer}
    >
      {setup.isPending && <LoadingSpinner label="Preparing your setup" />}
      {setup.isError && (
        <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
          <Stack gap="xs">
            {errorMessage(setup.error, twoFactorMessages.setupFailed)}
            <Anchor component={Link} to="/login" size="sm">
              Log in again
            </Anchor>
          </Stack>
        </Alert>
      )}
      {setup.data && (
        <SetupPanel
          setup={setup.data}
          isPending={confirm.isPending}
          error={confirm.isError ? errorMessage(confirm.error, twoFactorMessages.wrongCode) : null}
          onSubmitCode={(code) => confirm.mutate({ code, rememberDevice })}
          submitLabel="Turn on and sign in"
          extra={
            <Checkbox
              label="Remember this device for 30 days"
              checked={rememberDevice}
              onChange={(event) => setRememberDevice(event.currentTarget.checked)}
            />
          }
        />
      )}
    </AuthLayout>
  );
}
