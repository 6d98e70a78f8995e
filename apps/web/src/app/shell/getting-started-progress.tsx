import { gettingStartedOf, type Account } from '@herald/contracts';
import { Button, RingProgress, Text, Tooltip } from '@mantine/core';
import { Link } from 'react-router';

export interface GettingStartedStep {
  percent: number;
  label: string;
  to: string;
}

/** The four-step progress rule (docs/web-app.md, shared with the dashboard); null once every step is done. */
export function gettingStartedStep(
  account: Pick<Account, 'onboarding' | 'peopleCount'>,
): GettingStartedStep | null {
  const { percent, next } = gettingStartedOf(account);
  return next ? { percent, ...next } : null;
}

export function GettingStartedProgress({ account }: { account: Account }) {
  const step = gettingStartedStep(account);
  if (!step) return null;
  return (
    <Tooltip label={`Getting started: ${step.percent}% done`} withArrow>
      <Button
        component={Link}
        to={step.to}
        variant="light"
        size="compact-md"
        radius="xl"
        leftSection={
          <RingProgress
            size={26}
            thickness={3}
            roundCaps
            sections={[{ value: step.percent, color: 'indigo' }]}
          />
        }
        aria-label={`Getting started ${step.percent}%. Next: ${step.label}`}
      >
        <Text size="sm" fw={500} span>
          Next: {step.label}
        </Text>
      </Button>
    </Tooltip>
  );
}
