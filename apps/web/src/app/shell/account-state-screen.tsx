import type { AccountStatus } from '@herald/contracts';
import { Anchor, Button, Center, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconAlertOctagon, IconClockExclamation, IconCreditCardOff } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { BrandLogo } from '../../ui/brand-logo.tsx';
import { ChoosePlanButton } from '../../features/billing/choose-plan-button.tsx';
import { useLogout } from '../../features/account/account.api.ts';
import { useConfig } from '../../lib/config.api.ts';

function LogoutLink() {
  const logout = useLogout();
  return (
    <Anchor component="button" type="button" size="sm" c="dimmed" onClick={() => logout.mutate()}>
      Log out
    </Anchor>
  );
}

function StateCard({
  icon,
  color,
  title,
  children,
}: {
  icon: ReactNode;
  color: string;
  title: string;
  children: ReactNode;
}) {
  return (
    <Center mih="100vh" p="md" bg="gray.0">
      <Stack align="center" gap="lg" w="100%" maw={520}>
        <BrandLogo />
        <Paper withBorder radius="lg" p="xl" w="100%" shadow="sm">
          <Stack align="center" ta="center" gap="md">
            <ThemeIcon size={64} radius="xl" variant="light" color={color}>
              {icon}
            </ThemeIcon>
            <Title order={2}>{title}</Title>
            {children}
          </Stack>
        </Paper>
        <LogoutLink />
      </Stack>
    </Center>
  );
}

/** Full-screen messages for expired, canceled and suspended accounts (docs/web-app.md). */
export function AccountStateScreen({
  status,
}: {
  status: Extract<AccountStatus, 'trialExpired' | 'canceled' | 'blocked'>;
}) {
  const { supportEmail, supportUrl } = useConfig();

  if (status === 'trialExpired') {
    return (
      <StateCard
        icon={<IconClockExclamation size={32} />}
        color="orange"
        title="Oh no! Your trial has expired"
      >
        <Text c="dimmed">Choose a plan to keep your flows running and your people in one place.</Text>
        <ChoosePlanButton />
        {(supportUrl || supportEmail) && (
          <Group gap="lg" justify="center">
            {supportUrl && (
              <Anchor href={supportUrl} target="_blank" rel="noreferrer" size="sm">
                Book a strategy call
              </Anchor>
            )}
            {supportEmail && (
              <Anchor
                href={`mailto:${supportEmail}?subject=${encodeURIComponent('Trial extension')}`}
                size="sm"
              >
                Get your trial extended
              </Anchor>
            )}
          </Group>
        )}
      </StateCard>
    );
  }
  if (status === 'canceled') {
    return (
      <StateCard icon={<IconCreditCardOff size={32} />} color="gray" title="Oh, your account is canceled">
        <Text c="dimmed">Choose a plan to reactivate your account.</Text>
        <ChoosePlanButton />
      </StateCard>
    );
  }
  return (
    <StateCard icon={<IconAlertOctagon size={32} />} color="red" title="Account Suspended">
      <Text c="dimmed">
        This account has been suspended. Contact us to find out why and what can be done.
      </Text>
      {supportEmail && (
        <Button component="a" href={`mailto:${supportEmail}`} variant="light" size="md">
          Contact us
        </Button>
      )}
    </StateCard>
  );
}
