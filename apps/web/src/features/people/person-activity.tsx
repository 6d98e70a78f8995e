import type { Event } from '@herald/contracts';
import {
  Anchor,
  Button,
  Card,
  SimpleGrid,
  Stack,
  Text,
  ThemeIcon,
  Timeline,
  Title,
  Tooltip,
} from '@mantine/core';
import {
  IconBolt,
  IconClick,
  IconForms,
  IconMail,
  IconMailOpened,
  IconMailOff,
  IconUser,
  IconWorld,
} from '@tabler/icons-react';
import type { z } from 'zod';
import { formatDateTime, formatRelative } from '../../lib/format.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { usePersonEvents, usePersonMetrics } from './people.api.ts';

type PersonEvent = z.infer<typeof Event>;

const metricLabels = [
  ['sent', 'Sent'],
  ['opened', 'Opened'],
  ['clicked', 'Clicked'],
  ['bounced', 'Bounced'],
  ['unsubscribed', 'Unsubscribed'],
] as const;

/** Email counts for one person (GET /v1/people/metrics/{id}). */
export function PersonMetrics({ id }: { id: number }) {
  const metrics = usePersonMetrics(id);
  return (
    <Card withBorder radius="md" p="lg">
      <Title order={2} fz={18} mb="md">
        Email activity
      </Title>
      <ListBody
        query={metrics}
        loadingLabel="Loading email activity"
        skeletonHeights={[48]}
        errorFallback="Error while loading this person."
      >
        <SimpleGrid cols={{ base: 3, xs: 5 }} spacing="sm">
          {metricLabels.map(([key, label]) => (
            <Stack key={key} gap={0} align="center" ta="center">
              <Text fz={22} fw={700} lh={1.2}>
                {(metrics.data?.metrics[key] ?? 0).toLocaleString()}
              </Text>
              <Text size="xs" c="dimmed">
                {label}
              </Text>
            </Stack>
          ))}
        </SimpleGrid>
      </ListBody>
    </Card>
  );
}

function eventIcon(event: PersonEvent) {
  const key = `${event.type} ${event.name ?? ''}`.toLowerCase();
  if (key.includes('unsubscrib') || key.includes('bounce')) return <IconMailOff size={14} />;
  if (key.includes('open')) return <IconMailOpened size={14} />;
  if (key.includes('click')) return <IconClick size={14} />;
  if (key.includes('email') || key.includes('sent')) return <IconMail size={14} />;
  if (key.includes('form')) return <IconForms size={14} />;
  if (event.type === 'page') return <IconWorld size={14} />;
  if (event.type === 'identify') return <IconUser size={14} />;
  return <IconBolt size={14} />;
}

function eventTitle(event: PersonEvent): string {
  if (event.name) return event.name;
  if (event.type === 'page') return 'Visited a page';
  if (event.type === 'identify') return 'Identified';
  return event.type;
}

/** The person's timeline, newest first, 50 at a time (GET /v1/people/{id}/events). */
export function PersonActivity({ id }: { id: number }) {
  const events = usePersonEvents(id);
  const list = events.data?.pages.flatMap((p) => p.events) ?? [];
  return (
    <Card withBorder radius="md" p="lg">
      <Title order={2} fz={18} mb="md">
        Activity
      </Title>
      <ListBody
        query={events}
        loadingLabel="Loading activity"
        skeletonHeights={[40, 40, 40]}
        errorFallback="Error while loading person events."
        isEmpty={list.length === 0}
        empty={
          <Text size="sm" c="dimmed">
            No activity yet. Page visits, events and email activity show here as they happen.
          </Text>
        }
      >
        <Stack gap="md">
          <Timeline bulletSize={26} lineWidth={2}>
            {list.map((event) => (
              <Timeline.Item
                key={event.id}
                bullet={
                  <ThemeIcon size={26} radius="xl" variant="light">
                    {eventIcon(event)}
                  </ThemeIcon>
                }
                title={
                  <Text size="sm" fw={500}>
                    {eventTitle(event)}
                  </Text>
                }
              >
                {event.url && (
                  <Anchor
                    href={event.url}
                    target="_blank"
                    rel="noreferrer"
                    size="xs"
                    style={{ wordBreak: 'break-all' }}
                  >
                    {event.url}
                  </Anchor>
                )}
                <Tooltip label={formatDateTime(event.createdAt)} withArrow>
                  <Text size="xs" c="dimmed" w="fit-content">
                    {formatRelative(event.createdAt)}
                  </Text>
                </Tooltip>
              </Timeline.Item>
            ))}
          </Timeline>
          {events.hasNextPage && (
            <Button
              variant="default"
              w="fit-content"
              onClick={() => void events.fetchNextPage()}
              loading={events.isFetchingNextPage}
            >
              Load more
            </Button>
          )}
        </Stack>
      </ListBody>
    </Card>
  );
}
