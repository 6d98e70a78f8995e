import { sendingMessages } from '@herald/contracts';
import { Alert, Anchor, Button, Stack } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { AuthLayout } from '../auth/auth-layout.tsx';
import { useConfirmSender } from './senders.api.ts';

const appLink = (
  <Anchor component={Link} to="/settings/email/addresses" fw={500}>
    Go to sender addresses
  </Anchor>
);

/** /public/verify-sender?token=: the link in a verification mail; posts the token once and says how it went. */
export function VerifySenderPage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token') ?? '';
  const confirm = useConfirmSender();
  const posted = useRef(false);
  const { mutate } = confirm;

  useEffect(() => {
    // Once per page load: React's development double effects must not spend the token twice.
    if (!token || posted.current) return;
    posted.current = true;
    mutate(token);
  }, [token, mutate]);

  if (!token) {
    return (
      <AuthLayout title="Sender address" footer={appLink}>
        <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
          {sendingMessages.verificationLinkInvalid}
        </Alert>
      </AuthLayout>
    );
  }
  if (confirm.isError) {
    return (
      <AuthLayout title="We couldn’t verify this address" footer={appLink}>
        <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
          {errorMessage(confirm.error, sendingMessages.verificationLinkInvalid)}
        </Alert>
      </AuthLayout>
    );
  }
  if (confirm.isSuccess) {
    return (
      <AuthLayout title="Address verified">
        <Stack gap="md">
          <Alert color="green" variant="light" icon={<IconCircleCheck size={18} />} role="status">
            {confirm.data.message}
          </Alert>
          <Button component={Link} to="/settings/email/addresses" size="md" fullWidth>
            Open Herald
          </Button>
        </Stack>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Verifying your address">
      <LoadingSpinner label="Verifying your address" />
    </AuthLayout>
  );
}
