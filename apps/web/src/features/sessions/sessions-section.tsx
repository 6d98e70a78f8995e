import { sessionMessages, type SessionView } from '@herald/contracts';
import { Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconDevices } from '@tabler/icons-react';
import { errorMessage } from '../../lib/api.ts';
import { formatDateTime, formatRelative } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { useEndOtherSessions, useEndSession, useMySessions } from './sessions.api.ts';

function SessionRow({
  session,
  onEnd,
  isEnding,
}: {
  session: SessionView;
  onEnd: () => void;
  isEnding: boolean;
}) {
  return (
    <Card withBorder radius="sm" p="sm" role="listitem" data-testid="session">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Group gap="xs">
            <Text size="sm" fw={600}>
              {session.browser}
            </Text>
            {session.isCurrent && (
              <Badge size="sm" variant="light" color="teal">
                This device
              </Badge>
            )}
          </Group>
          <Text size="xs" c="dimmed">
            {session.ip ?? 'Unknown address'} · signed in {formatDateTime(session.createdAt)} · last seen{' '}
            {formatRelative(session.lastSeenAt)}
          </Text>
        </Stack>
        {!session.isCurrent && (
          <Button
            size="xs"
            variant="default"
            color="red"
            onClick={onEnd}
            loading={isEnding}
            aria-label={`Sign out ${session.browser} at ${session.ip ?? 'an unknown address'}`}
          >
            Sign out
          </Button>
        )}
      </Group>
    </Card>
  );
}

/** The profile's list of signed-in sessions, with "sign out" for one or all the others. */
export function SessionsSection() {
  const sessions = useMySessions();
  const end = useEndSession();
  const endOthers = useEndOtherSessions();

  const confirmEndOthers = () =>
    modals.openConfirmModal({
      title: 'Sign out every other session?',
      children: <Text size="sm">Every browser and device but this one will have to sign in again.</Text>,
      labels: { confirm: 'Sign out others', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        endOthers.mutate(undefined, {
          onSuccess: () => notifySuccess(sessionMessages.othersEnded),
          onError: (error) => notifyError(error, sessionMessages.endFailed),
        }),
    });

  const list = sessions.data?.sessions ?? [];
  const hasOthers = list.some((session) => !session.isCurrent);
  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs">
            <IconDevices size={20} aria-hidden />
            <Title order={2} fz="lg">
              Where you're signed in
            </Title>
          </Group>
          {hasOthers && (
            <Button
              size="xs"
              variant="light"
              color="red"
              onClick={confirmEndOthers}
              loading={endOthers.isPending}
            >
              Sign out all other sessions
            </Button>
          )}
        </Group>
        {sessions.isPending ? (
          <LoadingSpinner label="Loading your sessions" />
        ) : sessions.isError ? (
          <LoadError
            message={errorMessage(sessions.error, sessionMessages.couldNotLoad)}
            onRetry={() => void sessions.refetch()}
          />
        ) : (
          <>
            <Stack gap="xs" role="list" aria-label="Sessions">
              {list.map((session) => (
                <SessionRow
                  key={session.id}
                  session={session}
                  isEnding={end.isPending && end.variables === session.id}
                  onEnd={() =>
                    end.mutate(session.id, {
                      onSuccess: () => notifySuccess(sessionMessages.ended),
                      onError: (error) => notifyError(error, sessionMessages.endFailed),
                    })
                  }
                />
              ))}
            </Stack>
            {!hasOthers && (
              <Text size="sm" c="dimmed">
                You're not signed in anywhere else.
              </Text>
            )}
          </>
        )}
      </Stack>
    </Card>
  );
}
