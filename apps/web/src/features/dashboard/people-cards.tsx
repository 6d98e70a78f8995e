import type { DashboardPeople } from '@herald/contracts';
import { Anchor, Badge, Group, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import {
  IconArrowDownRight,
  IconArrowUpRight,
  IconMailOff,
  IconUserCheck,
  IconUserPlus,
  IconUsers,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { GrowthChart } from './growth-chart.tsx';

interface StatCardProps {
  label: string;
  value: number;
  icon: ReactNode;
  color: string;
  note?: ReactNode;
}

/** One key number with its label and a short note under it. */
export function StatCard({ label, value, icon, color, note }: StatCardProps) {
  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Text size="sm" c="dimmed" fw={500}>
            {label}
          </Text>
          <Text fz={28} fw={700} lh={1.2}>
            {value.toLocaleString()}
          </Text>
        </Stack>
        <ThemeIcon variant="light" color={color} size={40} radius="md" aria-hidden>
          {icon}
        </ThemeIcon>
      </Group>
      {note && (
        <Text size="xs" c="dimmed" mt="xs" component="div">
          {note}
        </Text>
      )}
    </Paper>
  );
}

const percentOf = (part: number, whole: number) =>
  whole > 0 ? `${Math.round((part / whole) * 100)}%` : '0%';

/** How the last 30 days compare with the 30 before, as a badge ("+25%", "−10%", "New"). */
function Change({ now, before }: { now: number; before: number }) {
  if (now === 0 && before === 0)
    return (
      <Text span size="xs" c="dimmed">
        No new people in 60 days
      </Text>
    );
  if (before === 0) {
    return (
      <Text span size="xs" c="dimmed">
        None in the 30 days before
      </Text>
    );
  }
  const change = Math.round(((now - before) / before) * 100);
  const isUp = change >= 0;
  return (
    <Group gap={6} wrap="nowrap">
      <Badge
        color={isUp ? 'teal' : 'red'}
        variant="light"
        tt="none"
        size="sm"
        leftSection={
          isUp ? <IconArrowUpRight size={12} aria-hidden /> : <IconArrowDownRight size={12} aria-hidden />
        }
      >
        {isUp ? '+' : '−'}
        {Math.abs(change)}%
      </Badge>
      <Text span size="xs" c="dimmed">
        vs the 30 days before ({before.toLocaleString()})
      </Text>
    </Group>
  );
}

/** The people numbers: four key-number cards. */
export function PeopleStats({ people }: { people: DashboardPeople }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }} spacing="md">
      <StatCard
        label="People"
        value={people.total}
        color="indigo"
        icon={<IconUsers size={22} />}
        note={
          <Anchor component={Link} to="/people" size="xs">
            See everyone
          </Anchor>
        }
      />
      <StatCard
        label="Subscribed"
        value={people.active}
        color="teal"
        icon={<IconUserCheck size={22} />}
        note={`${percentOf(people.active, people.total)} of your people`}
      />
      <StatCard
        label="Unsubscribed"
        value={people.unsubscribed}
        color="gray"
        icon={<IconMailOff size={22} />}
        note={`${percentOf(people.unsubscribed, people.total)} of your people`}
      />
      <StatCard
        label="New in the last 30 days"
        value={people.newLast30}
        color="grape"
        icon={<IconUserPlus size={22} />}
        note={<Change now={people.newLast30} before={people.newPrevious30} />}
      />
    </SimpleGrid>
  );
}

/** The growth chart: new people per day over the last 30 days, in the account's time zone. */
export function GrowthCard({ people, timezone }: { people: DashboardPeople; timezone: string }) {
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="growth-title">
      <Group justify="space-between" align="baseline" mb="sm" wrap="wrap" gap={4}>
        <Title order={2} fz="lg" id="growth-title">
          New people per day
        </Title>
        <Text size="xs" c="dimmed">
          Last 30 days · {timezone}
        </Text>
      </Group>
      {people.newLast30 === 0 ? (
        <Stack gap={4} py="lg" align="center" ta="center">
          <Text fw={500}>Nobody new in the last 30 days</Text>
          <Text size="sm" c="dimmed">
            People you add, import or capture from your site appear here day by day.
          </Text>
        </Stack>
      ) : (
        <GrowthChart days={people.daily} />
      )}
    </Paper>
  );
}
