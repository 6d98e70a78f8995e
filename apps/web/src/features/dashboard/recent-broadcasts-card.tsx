import type { DashboardBroadcast } from '@herald/contracts';
import { Anchor, Button, Divider, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconSpeakerphone } from '@tabler/icons-react';
import { Fragment } from 'react';
import { Link } from 'react-router';
import { formatDateTime } from '../../lib/format.ts';
import { BroadcastStatusBadge } from '../broadcasts/broadcast-status-badge.tsx';

const asPercent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

function Figure({ label, value, rate }: { label: string; value: number; rate?: number }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} size="sm">
        {rate === undefined ? value.toLocaleString() : asPercent(rate)}
        {rate !== undefined && (
          <Text span size="xs" c="dimmed" fw={400}>
            {' '}
            ({value.toLocaleString()})
          </Text>
        )}
      </Text>
    </Stack>
  );
}

/** The last broadcasts that went out: status, when, sent, open and click rates; each links to its page. */
export function RecentBroadcastsCard({ broadcasts }: { broadcasts: DashboardBroadcast[] }) {
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="recent-broadcasts-title">
      <Group justify="space-between" align="baseline" mb="sm">
        <Title order={2} fz="lg" id="recent-broadcasts-title">
          Recent broadcasts
        </Title>
        <Anchor component={Link} to="/broadcasts" size="sm">
          All broadcasts
        </Anchor>
      </Group>
      {broadcasts.length === 0 ? (
        <Stack gap="xs" py="lg" align="center" ta="center">
          <Text fw={500}>No broadcasts sent yet</Text>
          <Text size="sm" c="dimmed" maw={380}>
            Once you send a broadcast, its opens and clicks show here.
          </Text>
          <Button
            component={Link}
            to="/broadcasts"
            variant="light"
            leftSection={<IconSpeakerphone size={16} />}
          >
            Go to broadcasts
          </Button>
        </Stack>
      ) : (
        <Stack gap="sm">
          {broadcasts.map((item, index) => (
            <Fragment key={item.id}>
              {index > 0 && <Divider />}
              <Stack gap={6}>
                <Group justify="space-between" wrap="nowrap" gap="sm" align="flex-start">
                  <Stack gap={0} style={{ minWidth: 0 }}>
                    <Anchor
                      component={Link}
                      to={`/broadcasts/${item.id}`}
                      fw={600}
                      style={{ wordBreak: 'break-word' }}
                    >
                      {item.name}
                    </Anchor>
                    {item.startedAt && (
                      <Text size="xs" c="dimmed">
                        Started {formatDateTime(item.startedAt)}
                      </Text>
                    )}
                  </Stack>
                  <BroadcastStatusBadge status={item.status} />
                </Group>
                <SimpleGrid cols={3} spacing="xs">
                  <Figure label="Sent" value={item.sent} />
                  <Figure label="Open rate" value={item.opens} rate={item.openRate} />
                  <Figure label="Click rate" value={item.clicks} rate={item.clickRate} />
                </SimpleGrid>
              </Stack>
            </Fragment>
          ))}
        </Stack>
      )}
    </Paper>
  );
}
