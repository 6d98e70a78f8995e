import type { ConditionVerdict, SimulateResult } from '@herald/contracts';
import { Alert, Badge, Button, Collapse, Group, Stack, Text, ThemeIcon, Timeline } from '@mantine/core';
import { IconCheck, IconFlag, IconMail, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { PreviewFrame } from '../../emails/preview-frame.tsx';
import { describeNode, type ConditionNames } from '../../segments/condition-text.ts';

const endings: Record<SimulateResult['ended'], { color: string; text: string }> = {
  done: { color: 'teal', text: 'The run reached the end of the flow.' },
  converted: {
    color: 'teal',
    text: 'The person reached the flow’s goal: the run ends there as a conversion.',
  },
  exited: { color: 'yellow', text: 'The run left the flow.' },
  failed: { color: 'red', text: 'The run failed.' },
  horizon: {
    color: 'blue',
    text: 'The test run stopped at its end time while the person was still waiting.',
  },
  stepLimit: { color: 'yellow', text: 'The test run stopped at its step limit.' },
};

function Verdicts({ verdicts, names }: { verdicts: ConditionVerdict[]; names: ConditionNames }) {
  return (
    <Stack gap={4} component="ul" pl={0} m={0} style={{ listStyle: 'none' }}>
      {verdicts.map((v, i) => (
        <li key={i}>
          <Group gap={6} wrap="nowrap" align="flex-start">
            <ThemeIcon
              size={18}
              radius="xl"
              color={v.matches ? 'teal' : 'red'}
              variant="light"
              role="img"
              aria-label={v.matches ? 'matches' : 'does not match'}
            >
              {v.matches ? <IconCheck size={12} /> : <IconX size={12} />}
            </ThemeIcon>
            <Text size="xs">{describeNode(v.node, names)}</Text>
          </Group>
          {v.children && (
            <div style={{ paddingLeft: 24, paddingTop: 4 }}>
              <Verdicts verdicts={v.children} names={names} />
            </div>
          )}
        </li>
      ))}
    </Stack>
  );
}

function EmailPreview({ email }: { email: SimulateResult['emails'][number] }) {
  const [isOpen, setIsOpen] = useState(false);
  return (
    <Stack gap={4}>
      <Group gap="xs" wrap="wrap">
        <IconMail size={14} aria-hidden />
        <Text size="xs" fw={600} style={{ wordBreak: 'break-word' }}>
          {email.subject}
        </Text>
        <Button
          variant="subtle"
          size="compact-xs"
          onClick={() => setIsOpen((o) => !o)}
          aria-expanded={isOpen}
        >
          {isOpen ? 'Hide email' : 'Show email'}
        </Button>
      </Group>
      <Collapse in={isOpen}>
        {isOpen && (
          <PreviewFrame html={email.html} width="100%" height={420} title={`Email: ${email.subject}`} />
        )}
      </Collapse>
    </Stack>
  );
}

/** The test run's result: how it ended, then each step with its time on the person's clock, outcome and why. */
export function SimulateTimeline({
  result,
  names,
  stepSummary,
}: {
  result: SimulateResult;
  names: ConditionNames;
  stepSummary: (stepId: number) => string | null;
}) {
  const ending = endings[result.ended];
  const emailsByStep = new Map<string, SimulateResult['emails'][number]>();
  for (const email of result.emails) emailsByStep.set(`${email.stepId}:${email.at}`, email);
  return (
    <Stack gap="md" data-testid="simulation-result">
      <Alert
        color={ending.color}
        variant="light"
        icon={<IconFlag size={18} />}
        title={ending.text}
        role="status"
      >
        <Stack gap={2}>
          {result.reason && <Text size="sm">{result.reason}</Text>}
          {result.convertedAt && (
            <Text size="sm">
              Converted at{' '}
              {new Date(result.convertedAt).toLocaleString(undefined, {
                timeZone: result.timeZone,
                dateStyle: 'medium',
                timeStyle: 'short',
              })}
              .
            </Text>
          )}
          {result.wakeAt && (
            <Text size="sm">
              Next step at{' '}
              {new Date(result.wakeAt).toLocaleString(undefined, {
                timeZone: result.timeZone,
                dateStyle: 'medium',
                timeStyle: 'short',
              })}
              .
            </Text>
          )}
          <Text size="xs" c="dimmed">
            Times are in {result.timeZone}. Nothing was sent and nothing was saved.
          </Text>
        </Stack>
      </Alert>
      {result.path.length === 0 ? (
        <Text size="sm" c="dimmed">
          The person did not enter the flow.
        </Text>
      ) : (
        <Timeline bulletSize={22} lineWidth={2} active={result.path.length - 1}>
          {result.path.map((step) => {
            const email = emailsByStep.get(`${step.stepId}:${step.at}`);
            return (
              <Timeline.Item
                key={step.seq}
                title={
                  <Group gap="xs" wrap="wrap">
                    <Text size="sm" fw={600}>
                      {step.name}
                    </Text>
                    <Badge
                      size="sm"
                      variant="light"
                      color={step.outcome === 'no' ? 'red' : step.outcome === 'yes' ? 'teal' : 'gray'}
                      tt="none"
                    >
                      {step.outcome}
                    </Badge>
                  </Group>
                }
              >
                <Stack gap={4}>
                  {stepSummary(step.stepId) && (
                    <Text size="xs" c="dark.4" style={{ wordBreak: 'break-word' }}>
                      {stepSummary(step.stepId)}
                    </Text>
                  )}
                  <Text size="xs" c="dimmed">
                    {step.localAt}
                  </Text>
                  <Text size="sm" style={{ wordBreak: 'break-word' }}>
                    {step.why}
                  </Text>
                  {step.verdicts && step.verdicts.length > 0 && (
                    <Verdicts verdicts={step.verdicts} names={names} />
                  )}
                  {email && <EmailPreview email={email} />}
                </Stack>
              </Timeline.Item>
            );
          })}
        </Timeline>
      )}
    </Stack>
  );
}
