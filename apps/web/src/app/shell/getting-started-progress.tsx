import { gettingStartedOf, type Account } from '@herald/contracts';
import { Button, Text } from '@mantine/core';
import { Link } from 'react-router';
import { DeferredHint } from './deferred.tsx';

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

/**
 * A 26 px ring filled to `percent`, drawn here rather than with Mantine's RingProgress, whose section tooltips would
 * bring Floating UI into the shell's first paint (docs/web-app.md, "A lighter web app").
 */
function ProgressRing({ percent }: { percent: number }) {
  const radius = 11.5;
  const length = 2 * Math.PI * radius;
  return (
    <svg width={26} height={26} viewBox="0 0 26 26" aria-hidden focusable="false">
      <circle cx={13} cy={13} r={radius} fill="none" strokeWidth={3} stroke="var(--mantine-color-gray-2)" />
      <circle
        cx={13}
        cy={13}
        r={radius}
        fill="none"
        strokeWidth={3}
        strokeLinecap="round"
        stroke="var(--mantine-color-indigo-filled)"
        strokeDasharray={`${(length * Math.min(100, Math.max(0, percent))) / 100} ${length}`}
        transform="rotate(-90 13 13)"
      />
    </svg>
  );
}

export function GettingStartedProgress({ account }: { account: Account }) {
  const step = gettingStartedStep(account);
  if (!step) return null;
  return (
    <DeferredHint label={`Getting started: ${step.percent}% done`}>
      <Button
        component={Link}
        to={step.to}
        variant="light"
        size="compact-md"
        radius="xl"
        leftSection={<ProgressRing percent={step.percent} />}
        aria-label={`Getting started ${step.percent}%. Next: ${step.label}`}
      >
        <Text size="sm" fw={500} span>
          Next: {step.label}
        </Text>
      </Button>
    </DeferredHint>
  );
}
