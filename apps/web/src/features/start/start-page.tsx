import { gettingStartedOf, messages, type UpdateAccountBody } from '@herald/contracts';
import {
  Alert,
  Anchor,
  Box,
  Button,
  Container,
  Group,
  List,
  Paper,
  Progress,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowRight, IconCheck, IconConfetti } from '@tabler/icons-react';
import { useEffect } from 'react';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { BrandLogo } from '../../ui/brand-logo.tsx';
import { FullScreenLoader } from '../../ui/full-screen-loader.tsx';
import { useConfig } from '../../lib/config.api.ts';
import { useAccount, useUpdateAccount } from '../account/account.api.ts';
import { useImports } from '../imports/imports.api.ts';
import { StageNav } from './stage-nav.tsx';
import { startStages, type OnboardingAction, type StartStage } from './start-stages.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

/**
 * /start and /start/:stageName: the quick-start guide. Each stage (but welcome) is an onboarding action of the
 * account; marking it done saves it once with PATCH /v1/accounts/me, which moves the top bar's getting-started
 * progress on (docs/web-app.md). Some actions are also recorded when the user does them: the import stage when an
 * import has finished, the help stage when the support site or the developer docs are opened from it.
 */
export function StartPage() {
  const { stageName } = useParams();
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const account = useAccount();
  const update = useUpdateAccount();
  const { supportUrl } = useConfig();
  const isNarrow = useIsNarrow();
  const onboarding = account.data?.onboarding;
  const isImportStage = stageName === 'import';
  const imports = useImports({ enabled: isImportStage && onboarding?.import !== true });
  const hasFinishedImport = imports.data?.imports.some((item) => item.status === 'done') === true;

  // An import that finished is the import action done: saved once, as the other actions.
  const { mutate } = update;
  useEffect(() => {
    if (hasFinishedImport && onboarding && onboarding.import !== true)
      mutate({ onboarding: { import: true } });
  }, [hasFinishedImport, onboarding, mutate]);

  const activeIndex = stageName ? startStages.findIndex((stage) => stage.id === stageName) : 0;
  if (activeIndex < 0) return <Navigate to="/start" replace />;
  if (!account.data || !onboarding) return <FullScreenLoader />;

  const progress = gettingStartedOf(account.data);
  const stage = startStages[activeIndex]!;
  const isDone = (item: StartStage) => item.id !== 'welcome' && progress.done[item.id];
  const nextStage = startStages[activeIndex + 1];
  /** Where to go once this stage is done: the next stage not done yet, else the dashboard. */
  const afterDone = (action: OnboardingAction) => {
    const remaining = startStages.find(
      (item) => item.id !== 'welcome' && item.id !== action && !progress.done[item.id],
    );
    return remaining ? `/start/${remaining.id}` : '/dashboard';
  };

  const save = (action: OnboardingAction, options: { thenGo: boolean }) => {
    // Onboarding actions are set once and never sent again (docs/web-app.md).
    if (onboarding[action]) return;
    const body: UpdateAccountBody = { onboarding: { [action]: true } };
    update.mutate(body, {
      onSuccess: () => {
        if (!options.thenGo) return;
        const target = afterDone(action);
        if (target === '/dashboard')
          notifications.show({ color: 'teal', message: '✅ Quick Start complete. Welcome aboard!' });
        void navigate(target);
      },
      onError: (error) =>
        notifications.show({
          color: 'red',
          message: errorMessage(error, messages.couldNotSaveAccountChanges),
        }),
    });
  };
  const markDone = () => {
    if (stage.id !== 'welcome') save(stage.id, { thenGo: true });
  };
  /** Opening help from the help stage is the help action itself. */
  const openedHelp = () => {
    if (stage.id === 'help') save('help', { thenGo: false });
  };

  const link = stage.link?.isExternalSupport
    ? supportUrl
      ? { ...stage.link, to: supportUrl }
      : null
    : stage.link;
  const otherLink = stage.otherLink;
  const peopleCount = account.data.peopleCount;

  return (
    <Box mih="100vh">
      <Group
        justify="space-between"
        px="md"
        py="sm"
        bg="white"
        style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}
      >
        <Anchor component={Link} to="/dashboard" underline="never" aria-label="Herald dashboard">
          <BrandLogo />
        </Anchor>
        <Button component={Link} to="/dashboard" variant="subtle" rightSection={<IconArrowRight size={16} />}>
          Go to dashboard
        </Button>
      </Group>
      <Container size="md" py="xl">
        <Stack gap="xl">
          {searchParams.get('register') === '1' && (
            <Alert
              color="teal"
              variant="light"
              icon={<IconConfetti size={20} />}
              title="Your account is ready!"
            >
              Welcome aboard, {account.data.name ?? 'friend'}. Your 14-day trial has started with every
              feature included. Here is how to get the most out of it.
            </Alert>
          )}
          <Stack gap="xs">
            <Title order={1}>Quick Start</Title>
            <Group gap="sm" wrap="nowrap">
              <Progress
                value={progress.percent}
                color="indigo"
                radius="xl"
                size="md"
                style={{ flex: 1 }}
                aria-label={`Getting started: ${progress.percent}% done`}
              />
              <Text size="sm" fw={600} c="indigo.7" style={{ whiteSpace: 'nowrap' }}>
                {progress.percent}% done
              </Text>
            </Group>
          </Stack>
          <StageNav activeIndex={activeIndex} isDone={isDone} isVertical={isNarrow} />
          <Paper withBorder radius="lg" p={{ base: 'lg', sm: 'xl' }}>
            <Stack gap="md">
              <Group gap="sm">
                <Title order={2}>{stage.title}</Title>
                {isDone(stage) && (
                  <ThemeIcon color="teal" radius="xl" size="sm" role="img" aria-label="Done">
                    <IconCheck size={14} />
                  </ThemeIcon>
                )}
              </Group>
              <Text c="dimmed">{stage.description}</Text>
              {stage.id === 'import' && peopleCount > 0 && (
                <Text size="sm" fw={500}>
                  Your account holds {peopleCount.toLocaleString()} {peopleCount === 1 ? 'person' : 'people'}
                  {peopleCount > 1 ? ': this step is done.' : '.'}
                </Text>
              )}
              <List spacing="xs" type="ordered">
                {stage.steps.map((step) => (
                  <List.Item key={step}>{step}</List.Item>
                ))}
              </List>
              <Group mt="sm" gap="sm">
                {link &&
                  (link.isExternalSupport ? (
                    <Button
                      component="a"
                      href={link.to}
                      target="_blank"
                      rel="noreferrer"
                      variant="light"
                      onClick={openedHelp}
                    >
                      {link.label}
                    </Button>
                  ) : (
                    <Button component={Link} to={link.to} variant="light">
                      {link.label}
                    </Button>
                  ))}
                {otherLink &&
                  (otherLink.isDocument ? (
                    <Button
                      component="a"
                      href={otherLink.to}
                      target="_blank"
                      rel="noreferrer"
                      variant="default"
                      onClick={openedHelp}
                    >
                      {otherLink.label}
                    </Button>
                  ) : (
                    <Button component={Link} to={otherLink.to} variant="default">
                      {otherLink.label}
                    </Button>
                  ))}
                {stage.id !== 'welcome' && (
                  <Button
                    onClick={markDone}
                    loading={update.isPending}
                    disabled={isDone(stage)}
                    leftSection={<IconCheck size={16} />}
                  >
                    {isDone(stage) ? 'Done' : 'Mark as done'}
                  </Button>
                )}
                {stage.id === 'welcome' && nextStage && (
                  <Button
                    component={Link}
                    to={`/start/${nextStage.id}`}
                    rightSection={<IconArrowRight size={16} />}
                  >
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
