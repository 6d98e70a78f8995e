import { ssoMessages } from '@herald/contracts';
import { Anchor, Stack, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { AuthLayout } from '../auth/auth-layout.tsx';
import { useFinishSso } from './sso.api.ts';

/** /sso/callback: where the identity provider sends the browser back; the server checks its answer. */
export function SsoCallbackPage() {
  const navigate = useNavigate();
  const finish = useFinishSso();
  const isSent = useRef(false);

  useEffect(() => {
    // Once: the answer's code is good for one exchange (React's development double effect would spend it twice).
    if (isSent.current) return;
    isSent.current = true;
    finish.mutate(window.location.search, { onSuccess: () => navigate('/', { replace: true }) });
  }, [finish, navigate]);

  return (
    <AuthLayout title="Single sign-on" subtitle="Checking your identity provider's answer.">
      {finish.isError ? (
        <Stack gap="sm" role="alert">
          <Text c="red.8" fw={500}>
            {errorMessage(finish.error, ssoMessages.answerRefused)}
          </Text>
          <Anchor component={Link} to="/login">
            Back to log in
          </Anchor>
        </Stack>
      ) : (
        <LoadingSpinner label="Signing you in" />
      )}
    </AuthLayout>
  );
}
