import { messages } from '@herald/contracts';
import { Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { errorMessage } from '../lib/api.ts';
import { FullScreenLoader } from '../ui/full-screen-loader.tsx';
import { registrationStepOf, useAccount, useSession } from '../features/account/account.api.ts';
import { AccountStateScreen } from './shell/account-state-screen.tsx';
import { sharedFlowOf } from '../features/flows/share/shared-flow-link.ts';

/** A share link opened without a session shows the read-only flow (loaded with the flows code, on first use). */
const SharedFlowVisitor = lazy(() => import('../features/flows/share/shared-flow-visitor.tsx'));

/** "/login?redirect=/people/5%3Fx%3D1": the origin kept, slashes left readable. */
export function loginPathFor(origin: string): string {
  if (origin === '/' || origin === '') return '/login';
  return `/login?redirect=${encodeURIComponent(origin).replace(/%2F/gi, '/')}`;
}

/** Paths a blocked-by-status account may still open to resolve it. */
const billingPaths = ['/billing', '/settings/billing'];

function LoadFailure({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder radius="md" p="xl" maw={480}>
        <Stack gap="md">
          <Title order={3}>{messages.errorLoadingAccount}</Title>
          <Text c="dimmed">{message}</Text>
          <Button onClick={onRetry} w="fit-content">
            Try again
          </Button>
        </Stack>
      </Paper>
    </Center>
  );
}

/** Guards every non-public route: session, finished registration, and account status. */
export function RequireAuth() {
  const location = useLocation();
  const session = useSession();
  const isLoggedIn = session.data?.isLoggedIn === true;
  const account = useAccount({ enabled: isLoggedIn });

  if (session.isPending) return <FullScreenLoader label="Checking your session" />;
  if (session.isError)
    return <LoadFailure message={messages.connectionIssues} onRetry={() => void session.refetch()} />;
  if (!isLoggedIn) {
    const sharedFlow = sharedFlowOf(location);
    if (sharedFlow)
      return (
        <Suspense fallback={<FullScreenLoader label="Loading the flow" />}>
          <SharedFlowVisitor link={sharedFlow} />
        </Suspense>
      );
    const hasLoggedOut = session.data?.isLoggedIn === false && session.data.hasLoggedOut === true;
    return (
      <Navigate to={hasLoggedOut ? '/login' : loginPathFor(location.pathname + location.search)} replace />
    );
  }

  if (account.isPending) return <FullScreenLoader label="Loading your account" />;
  if (account.isError)
    return (
      <LoadFailure
        message={errorMessage(account.error, messages.couldNotRetrieveAccount)}
        onRetry={() => void account.refetch()}
      />
    );

  const step = registrationStepOf(account.data);
  if (step) return <Navigate to={`/register/${step}`} replace />;

  const { status } = account.data;
  const isBillingPage = billingPaths.some((path) => location.pathname.startsWith(path));
  if (status === 'blocked' || ((status === 'trialExpired' || status === 'canceled') && !isBillingPage)) {
    return <AccountStateScreen status={status} />;
  }
  return <Outlet />;
}
