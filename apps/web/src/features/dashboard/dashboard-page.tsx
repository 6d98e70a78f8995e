import type { DashboardResponse } from '@herald/contracts';
import {
  Button,
  Grid,
  Group,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { IconFileImport, IconHierarchy2, IconMailPlus, IconRocket } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ListPage } from '../../ui/list-page.tsx';
import { accountKey, useAccount } from '../account/account.api.ts';
import { useDashboard } from './dashboard.api.ts';
import { GettingStartedCard } from './getting-started-card.tsx';
import { GrowthCard, PeopleStats } from './people-cards.tsx';
import { RecentBroadcastsCard } from './recent-broadcasts-card.tsx';

function FirstStep({
  icon,
  title,
  text,
  to,
  label,
}: {
  icon: ReactNode;
  title: string;
  text: string;
  to: string;
  label: string;
}) {
  return (
    <Stack gap="xs" justify="space-between">
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <ThemeIcon variant="light" size={36} radius="md" aria-hidden>
          {icon}
        </ThemeIcon>
        <Stack gap={2}>
          <Text fw={600}>{title}</Text>
          <Text size="sm" c="dimmed">
            {text}
          </Text>
        </Stack>
      </Group>
      <Button component={Link} to={to} variant="light" size="xs" w="fit-content">
        {label}
      </Button>
    </Stack>
  );
}

/** A brand-new account (nobody in it, nothing sent): what to do first. */
function WelcomeCard({ name }: { name: string | null }) {
  return (
    <Paper
      withBorder
      radius="md"
      p={{ base: 'md', sm: 'lg' }}
      bg="indigo.0"
      component="section"
      aria-labelledby="welcome-title"
    >
      <Stack gap="md">
        <Stack gap={2}>
          <Title order={2} fz="xl" id="welcome-title">
            Welcome to Herald{name ? `, ${name}` : ''}!
          </Title>
          <Text c="dimmed" size="sm">
            Nobody is in your account yet. Three steps get your first email out:
          </Text>
        </Stack>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg">
          <FirstStep
            icon={<IconFileImport size={20} />}
            title="Bring in your people"
            text="Import a CSV file or add people one by one."
            to="/people/imports/new"
            label="Import people"
          />
          <FirstStep
            icon={<IconMailPlus size={20} />}
            title="Write an email"
            text="Design it with the editor, then send it as a broadcast."
            to="/emails"
            label="Go to emails"
          />
          <FirstStep
            icon={<IconRocket size={20} />}
            title="Follow the Quick Start"
            text="Connect your apps, plan a flow and find help."
            to="/start"
            label="Open the Quick Start"
          />
        </SimpleGrid>
      </Stack>
    </Paper>
  );
}

/** Flows do not exist in this version: the card says so and shows no numbers. */
function FlowsCard() {
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="flows-title">
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <ThemeIcon variant="light" color="gray" size={36} radius="md" aria-hidden>
          <IconHierarchy2 size={20} />
        </ThemeIcon>
        <Stack gap={4}>
          <Title order={2} fz="lg" id="flows-title">
            Flows
          </Title>
          <Text size="sm" c="dimmed">
            No flows are set up yet. Active flows and the people in them will show here.
          </Text>
          <Button component={Link} to="/flows" variant="subtle" size="xs" px={0} w="fit-content">
            Go to flows
          </Button>
        </Stack>
      </Group>
    </Paper>
  );
}

function DashboardSkeleton() {
  return (
    <Stack gap="lg" role="status" aria-label="Loading the dashboard">
      <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }} spacing="md">
        {[0, 1, 2, 3].map((key) => (
          <Skeleton key={key} h={104} radius="md" />
        ))}
      </SimpleGrid>
      <Grid gutter="lg">
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Skeleton h={220} radius="md" />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Skeleton h={220} radius="md" />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

function DashboardCards({ data, name }: { data: DashboardResponse; name: string | null }) {
  const { people, broadcasts, gettingStarted } = data;
  const isNew = (people?.total ?? 0) === 0 && (broadcasts?.recent.length ?? 0) === 0;
  return (
    <Stack gap="lg">
      {isNew && <WelcomeCard name={name} />}
      {people && <PeopleStats people={people} />}
      <Grid gutter="lg">
        {/* On phones the next steps come first: they are what a new account needs most. */}
        <Grid.Col span={{ base: 12, md: 8 }} order={{ base: 2, md: 1 }}>
          <Stack gap="lg">
            {people && <GrowthCard people={people} timezone={data.timezone} />}
            {broadcasts && <RecentBroadcastsCard broadcasts={broadcasts.recent} />}
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }} order={{ base: 1, md: 2 }}>
          <Stack gap="lg">
            {gettingStarted.percent < 100 && <GettingStartedCard gettingStarted={gettingStarted} />}
            <FlowsCard />
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

/** /dashboard: the account's key numbers, growth, recent broadcasts and what to do next. */
export function DashboardPage() {
  const dashboard = useDashboard();
  const account = useAccount();
  const queryClient = useQueryClient();
  const total = dashboard.data?.people?.total;
  const peopleCount = account.data?.peopleCount;

  // The top bar's progress reads the account's people count: refresh it when the dashboard has seen people come or go.
  useEffect(() => {
    if (total !== undefined && peopleCount !== undefined && total !== peopleCount)
      void queryClient.invalidateQueries({ queryKey: accountKey });
  }, [total, peopleCount, queryClient]);

  return (
    <ListPage
      title="Dashboard"
      description="Your people, your latest sends and what to do next."
      query={dashboard}
      loadingLabel="Loading the dashboard"
      skeleton={<DashboardSkeleton />}
      errorTitle="Couldn't load the dashboard"
      errorFallback="Couldn't load the dashboard."
    >
      {() => dashboard.data && <DashboardCards data={dashboard.data} name={account.data?.name ?? null} />}
    </ListPage>
  );
}
