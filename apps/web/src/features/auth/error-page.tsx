import { messages } from '@herald/contracts';
import { Button, Group, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { AuthLayout } from './auth-layout.tsx';

/** /error: a plain page to land on when something failed outside the app (e.g. a sign-in callback). */
export function ErrorPage() {
  const [searchParams] = useSearchParams();
  const detail = searchParams.get('message');
  return (
    <AuthLayout title="Something went wrong">
      <Text c="dimmed">{detail ? detail.slice(0, 300) : messages.globalError}</Text>
      <Group>
        <Button component={Link} to="/">
          Go to the app
        </Button>
        <Button variant="default" onClick={() => window.location.reload()}>
          Reload
        </Button>
      </Group>
    </AuthLayout>
  );
}
