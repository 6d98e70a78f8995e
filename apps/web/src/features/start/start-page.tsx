import { messages, type UpdateAccountBody } from '@herald/contracts';
import { Alert, Anchor, Box, Button, Container, Group, List, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconArrowRight, IconCheck, IconConfetti } from '@tabler/icons-react';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { BrandLogo } from '../../ui/brand-logo.tsx';
import { FullScreenLoader } from '../../ui/full-screen-loader.tsx';
import { useConfig } from '../../app/config.api.ts';
import { useAccount, useUpdateAccount } from '../account/account.api.ts';
import { StageNav } from './stage-nav.tsx';
import { startStages, type StartStage } from './start-stages.ts';

/** /start and /start/:stageName: the quick-start guide. */
export function StartPage() {
  const { stageName } = useParams();
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const account = useAccount();
  const update = useUpdateAccount();
  const { supportUrl } = useConfig();
  const isNarrow = useMediaQuery('(max-width: 899px)', false, { getInitialValueInEffect: false });

  const activeIndex = stageName ? startStages.findIndex((stage) => stage.id === stageName) : 0;
  if (activeIndex < 0) return <Navigate to="/start" replace />;
  if (!account.data) return <FullScreenLoader />;

  const onboarding = account.data.onboarding;
  const stage = startStages[activeIndex]!;
  const isDone = (item: StartStage) => item.id !== 'welcome' && onboarding[item.id] === true;
  const nextStage = startStages[activeIndex + 1];

  const markDone = () => {
    if (stage.id === 'welcome' || onboarding[stage.id]) return;
    // Onboarding actions are set once and never sent again (account.md §4).
    const body: UpdateAccountBody = { onboarding: { [stage.id]: true } };
    update.mutate(body, {
      onSuccess: () => {
        if (nextStage) navigate(`/start/${nextStage.id}`);
      },
      onError: (error) => notifications.show({ color: 'red', message: errorMessage(error, messages.couldNotSaveAccountChanges) }),
    });
  };

  const link = stage.link?.isExternalSupport ? (supportUrl ? { ...stage.link, to: supportUrl } : null) : stage.link;

  return (
    <Box mih="100vh">
      <Group justify="space-between" px="md" py="sm" bg="white" style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}>
        <Anchor component={Link} to="/dashboard" underline="never">
          <BrandLogo />
        </Anchor>
        <Button component={Link} to="/dashboard" variant="subtle" rightSection={<IconArrowRight size={16} />}>
          Go to dashboard
        </Button>
      </Group>
      <Container size="md" py="xl">
        <Stack gap="xl">
          {searchParams.get('register') === '1' && (
            <Alert color="teal" variant="light" icon={<IconConfetti size={20} />} title="Your account is ready!">
              Welcome aboard, {account.data.name ?? 'friend'}. Your 14-day trial has started with every feature included. Here is how to
              get the most out of it.
            </Alert>
          )}
          <Title order={1}>Quick Start</Title>
          <StageNav activeIndex={activeIndex} isDone={isDone} isVertical={isNarrow} />
          <Paper withBorder radius="lg" p={{ base: 'lg', sm: 'xl' }}>
            <Stack gap="md">
              <Group gap="sm">
                <Title order={2}>{stage.title}</Title>
                {isDone(stage) && (
                  <ThemeIcon color="teal" radius="xl" size="sm" aria-label="Done">
                    <IconCheck size={14} />
                  </ThemeIcon>
                )}
              </Group>
              <Text c="dimmed">{stage.description}</Text>
              <List spacing="xs" type="ordered">
                {stage.steps.map((step) => (
                  <List.Item key={step}>{step}</List.Item>
                ))}
              </List>
              <Group mt="sm">
                {link &&
                  (link.isExternalSupport ? (
                    <Button component="a" href={link.to} target="_blank" rel="noreferrer" variant="light">
                      {link.label}
                    </Button>
                  ) : (
                    <Button component={Link} to={link.to} variant="light">
                      {link.label}
                    </Button>
                  ))}
                {stage.id !== 'welcome' && (
                  <Button onClick={markDone} loading={update.isPending} disabled={isDone(stage)} leftSection={<IconCheck size={16} />}>
                    {isDone(stage) ? 'Done' : 'Mark as done'}
                  </Button>
                )}
                {stage.id === 'welcome' && nextStage && (
                  <Button component={Link} to={`/start/${nextStage.id}`} rightSection={<IconArrowRight size={16} />}>
                    Let's go
                  </Button>
                )}
                {stage.id !== 'welcome' && nextStage && (
                  <Button component={Link} to={`/start/${nextStage.id}`} variant="subtle">
                    Next: {nextStage.label}
                  </Button>
                )}
              </Group>
            </Stack>
          </Paper>
        </Stack>
      </Container>
    </Box>
  );
}
