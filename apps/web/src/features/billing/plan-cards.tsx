import { planOptionLabel, type BillingAnswer } from '@herald/contracts';
import { Alert, Badge, Button, Card, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconStarFilled } from '@tabler/icons-react';
import { formatDate } from '../../lib/format.ts';

const day = 24 * 3600 * 1000;

/** Whole days left of the trial, never below 0. */
export function trialDaysLeft(trialEndsAt: string, now = Date.now()): number {
  return Math.max(0, Math.ceil((Date.parse(trialEndsAt) - now) / day));
}

const statusBadges: Record<BillingAnswer['status'], { label: string; color: string }> = {
  trial: { label: 'Trial', color: 'blue' },
  trialExpired: { label: 'Trial expired', color: 'orange' },
  active: { label: 'Active', color: 'teal' },
  canceled: { label: 'Canceled', color: 'gray' },
  blocked: { label: 'Suspended', color: 'red' },
};

const providerText = {
  chargebee: 'Paid by card',
  paypal: 'Paid through PayPal',
  operator: 'Set up by our team',
  marketplace: 'From a marketplace code',
} as const;

/** The plan, its status and the way to a bigger one. */
export function CurrentPlanCard({ billing, onUpgrade }: { billing: BillingAnswer; onUpgrade: () => void }) {
  const badge = statusBadges[billing.status];
  let summary;
  if (billing.plan) summary = <Text>{planOptionLabel(billing.plan)}</Text>;
  else if (billing.status === 'trial') {
    const days = trialDaysLeft(billing.trialEndsAt);
    summary = (
      <Text>
        Free trial with every feature on: <strong>{days === 1 ? '1 day' : `${days} days`} left</strong> (ends{' '}
        {formatDate(billing.trialEndsAt)}).
      </Text>
    );
  } else if (billing.status === 'trialExpired')
    summary = (
      <Text>Your trial ended on {formatDate(billing.trialEndsAt)}. Choose a plan to keep going.</Text>
    );
  else summary = <Text>No plan yet.</Text>;

  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs">
            <Title order={2} fz="lg">
              {billing.plan ? billing.plan.humanName : 'Current plan'}
            </Title>
            <Badge variant="light" color={badge.color}>
              {badge.label}
            </Badge>
          </Group>
          <Button leftSection={<IconStarFilled size={16} />} onClick={onUpgrade}>
            {billing.plan ? 'Upgrade plan' : 'Choose a plan'}
          </Button>
        </Group>
        {summary}
        {billing.plan && billing.planProvider && (
          <Text size="sm" c="dimmed">
            {providerText[billing.planProvider]}
            {billing.planSetAt ? ` since ${formatDate(billing.planSetAt)}` : ''}.
          </Text>
        )}
      </Stack>
    </Card>
  );
}

/** People in the account against the plan's limit. */
export function PeopleUsageCard({ billing }: { billing: BillingAnswer }) {
  const { peopleCount, peopleUpperLimit: limit, usage } = billing;
  const percent = limit ? Math.min(100, (peopleCount / limit) * 100) : 0;
  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="sm">
        <Title order={2} fz="lg">
          People
        </Title>
        {limit === null ? (
          <Text>
            {peopleCount.toLocaleString('en-US')} people.{' '}
            {billing.plan ? '' : 'There is no people limit until you choose a plan.'}
          </Text>
        ) : (
          <>
            <Group justify="space-between" gap="xs">
              <Text>
                <strong>{peopleCount.toLocaleString('en-US')}</strong> of {limit.toLocaleString('en-US')}{' '}
                people
              </Text>
              <Text size="sm" c="dimmed">
                {Math.round((peopleCount / limit) * 100)}%
              </Text>
            </Group>
            <Progress
              value={percent}
              color={usage === 'over' ? 'red' : usage === 'warning' ? 'orange' : 'teal'}
              size="lg"
              radius="xl"
              aria-label={`${peopleCount} of ${limit} people`}
            />
          </>
        )}
      </Stack>
    </Card>
  );
}

/** The 90% warning and the 100% notice; both say that nothing stops and nothing is lost. */
export function UsageAlert({ billing, onUpgrade }: { billing: BillingAnswer; onUpgrade: () => void }) {
  if (billing.usage === 'ok' || billing.peopleUpperLimit === null) return null;
  const over = billing.usage === 'over';
  return (
    <Alert
      variant="light"
      color={over ? 'red' : 'orange'}
      icon={<IconAlertTriangle size={18} />}
      title={over ? 'Your account has reached its people limit' : 'Your account is close to its people limit'}
    >
      <Stack gap="xs">
        <Text size="sm">
          {billing.peopleCount.toLocaleString('en-US')} of {billing.peopleUpperLimit.toLocaleString('en-US')}{' '}
          people. Nothing stops and nothing is deleted: imports, forms and tracking keep adding people and
          your emails keep going out. Upgrade to a plan that fits your audience.
        </Text>
        <Button size="xs" variant="light" color={over ? 'red' : 'orange'} w="fit-content" onClick={onUpgrade}>
          See larger plans
        </Button>
      </Stack>
    </Alert>
  );
}
