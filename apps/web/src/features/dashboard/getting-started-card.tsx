import type { GettingStarted } from '@herald/contracts';
import { Anchor, Button, Group, List, Paper, Progress, Text, ThemeIcon, Title } from '@mantine/core';
import { IconArrowRight, IconCheck, IconCircleDashed } from '@tabler/icons-react';
import { Link } from 'react-router';

const steps: { id: keyof GettingStarted['done']; label: string }[] = [
  { id: 'import', label: 'Import People' },
  { id: 'apps', label: 'Connect Apps' },
  { id: 'flow', label: 'Create Flow' },
  { id: 'help', label: 'Get Help' },
];

/** The getting-started progress of the top bar, with each step and the next one to take (docs/web-app.md). */
export function GettingStartedCard({ gettingStarted }: { gettingStarted: GettingStarted }) {
  const { percent, next, done } = gettingStarted;
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="getting-started-title">
      <Group justify="space-between" align="baseline" mb="xs">
        <Title order={2} fz="lg" id="getting-started-title">
          Getting started
        </Title>
        <Text size="sm" fw={600} c="indigo.7">
          {percent}%
        </Text>
      </Group>
      <Progress
        value={percent}
        color="indigo"
        radius="xl"
        size="md"
        aria-label={`Getting started: ${percent}% done`}
        mb="md"
      />
      <List spacing={8} size="sm" center>
        {steps.map((step) => (
          <List.Item
            key={step.id}
            icon={
              done[step.id] ? (
                <ThemeIcon color="teal" size={20} radius="xl" role="img" aria-label="Done">
                  <IconCheck size={13} />
                </ThemeIcon>
              ) : (
                <ThemeIcon color="gray" variant="light" size={20} radius="xl" role="img" aria-label="To do">
                  <IconCircleDashed size={13} />
                </ThemeIcon>
              )
            }
          >
            <Anchor
              component={Link}
              to={`/start/${step.id}`}
              c={done[step.id] ? 'dimmed' : undefined}
              td={done[step.id] ? 'line-through' : undefined}
            >
              {step.label}
            </Anchor>
          </List.Item>
        ))}
      </List>
      <Group mt="md" gap="sm">
        {next ? (
          <Button component={Link} to={next.to} rightSection={<IconArrowRight size={16} />}>
            Next: {next.label}
          </Button>
        ) : (
          <Text size="sm" c="teal.8" fw={500}>
            All set: every step is done.
          </Text>
        )}
        <Button component={Link} to="/start" variant="subtle">
          Open the Quick Start
        </Button>
      </Group>
    </Paper>
  );
}
