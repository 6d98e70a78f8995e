import type { SimulateBody } from '@herald/contracts';
import {
  Alert,
  Button,
  Drawer,
  Group,
  NumberInput,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { IconAlertCircle, IconPlayerPlay } from '@tabler/icons-react';
import { useMemo, useState, type FormEvent } from 'react';
import { errorMessage } from '../../../lib/api.ts';
import { conditionNames } from '../../segments/condition-text.ts';
import { useSegments } from '../../segments/segments.api.ts';
import { useEmails } from '../../emails/emails.api.ts';
import { usePersonFields } from '../../people/people.api.ts';
import { useFlow } from '../flows.api.ts';
import { summariseStep } from '../step-display.tsx';
import { emptyPerson, PersonForm, typedValue, useFieldTypes, type DraftPerson } from './person-form.tsx';
import { useSimulate } from './simulate.api.ts';
import { SimulateTimeline } from './simulate-timeline.tsx';

/** `datetime-local` text for a moment, in the browser's zone. */
function localInput(at: Date): string {
  const shifted = new Date(at.getTime() - at.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 16);
}

const toIso = (local: string) => new Date(local).toISOString();

/** Reads the form into the API's body, or says what to fix first. */
function bodyOf(
  mode: string,
  email: string,
  person: DraftPerson,
  start: string,
  days: number,
  types: Map<string, string>,
): SimulateBody | string {
  if (!start || Number.isNaN(Date.parse(start))) return 'Choose when the test run starts.';
  const startIso = toIso(start);
  const until = new Date(Date.parse(startIso) + days * 86_400_000).toISOString();
  if (mode === 'real') {
    if (!email.trim()) return 'Enter the email of a person in this account.';
    return { person: { email: email.trim() }, start: startIso, until };
  }
  const fields: Record<string, string | number | boolean | null> = {};
  for (const row of person.fields)
    if (row.name.trim() && row.value.trim())
      fields[row.name.trim()] = typedValue(row.value, types.get(row.name.trim()));
  const events: NonNullable<SimulateBody['events']> = [];
  for (const [index, event] of person.events.entries()) {
    if (!event.name.trim()) return `Name event ${index + 1}.`;
    if (!event.at || Number.isNaN(Date.parse(event.at))) return `Choose when event ${index + 1} happens.`;
    let properties: Record<string, unknown> = {};
    if (event.properties.trim()) {
      try {
        const parsed: unknown = JSON.parse(event.properties);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          return `The properties of event ${index + 1} must be a JSON object, like {"amount": 30}.`;
        properties = parsed as Record<string, unknown>;
      } catch {
        return `The properties of event ${index + 1} must be a JSON object, like {"amount": 30}.`;
      }
    }
    events.push({ name: event.name.trim(), at: toIso(event.at), properties });
  }
  return {
    person: { fields, tags: person.tags, ...(person.timezone ? { timezone: person.timezone } : {}) },
    events,
    start: startIso,
    until,
  };
}

/** "Test run": a person (real, by email, or made up) goes through the flow on a simulated clock; nothing is sent or saved. */
export function SimulateDrawer({
  flowId,
  opened,
  onClose,
}: {
  flowId: number;
  opened: boolean;
  onClose: () => void;
}) {
  const [mode, setMode] = useState<'synthetic' | 'real'>('synthetic');
  const [email, setEmail] = useState('');
  const [person, setPerson] = useState<DraftPerson>(emptyPerson);
  const [start, setStart] = useState(() => localInput(new Date()));
  const [days, setDays] = useState<number>(90);
  const [problem, setProblem] = useState<string | null>(null);
  const simulate = useSimulate(flowId);
  const types = useFieldTypes();
  const segments = useSegments({ enabled: opened });
  const fields = usePersonFields({ enabled: opened });
  const emails = useEmails('false', { enabled: opened });
  const flow = useFlow(flowId);
  const names = conditionNames({
    segments: (segments.data?.segments ?? []).map((s) => ({ id: s.id, name: s.name })),
    fields: fields.data?.items ?? [],
  });
  const stepSummary = useMemo(() => {
    const emailNames = new Map((emails.data?.emails ?? []).map((e) => [e.id, e.name]));
    const segmentNames = new Map((segments.data?.segments ?? []).map((s) => [s.id, s.name]));
    const fieldNames = new Map((fields.data?.items ?? []).map((f) => [f.name, f.title || f.name]));
    const stepNames = {
      email: (id: number) => emailNames.get(id) ?? `Email ${id}`,
      segment: (id: number) => segmentNames.get(id) ?? `Segment ${id}`,
      field: (name: string) => fieldNames.get(name) ?? name,
    };
    const steps = flow.data?.integration.steps ?? {};
    return (stepId: number) => {
      const step = steps[String(stepId)];
      return step ? summariseStep(step.operationKey, step.inputFields, stepNames) : null;
    };
  }, [emails.data, segments.data, fields.data, flow.data]);

  const run = (event: FormEvent) => {
    event.preventDefault();
    const body = bodyOf(mode, email, person, start, days, types);
    if (typeof body === 'string') return setProblem(body);
    setProblem(null);
    simulate.mutate(body);
  };

  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size="xl"
      title={<Text fw={600}>Test run</Text>}
    >
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          See the path a person would take through this flow, each filter’s answer and why, when each wait
          ends and each email as they would get it. Nothing is sent and nothing is saved.
        </Text>
        <form onSubmit={run} noValidate>
          <Stack gap="sm">
            <SegmentedControl
              value={mode}
              onChange={(value) => setMode(value as 'synthetic' | 'real')}
              data={[
                { value: 'synthetic', label: 'Made-up person' },
                { value: 'real', label: 'Real person' },
              ]}
              aria-label="Who goes through the flow"
            />
            {mode === 'real' ? (
              <TextInput
                label="Email of the person"
                type="email"
                placeholder="ada@example.com"
                value={email}
                onChange={(e) => setEmail(e.currentTarget.value)}
              />
            ) : (
              <PersonForm value={person} onChange={setPerson} />
            )}
            <Group gap="sm" wrap="wrap" align="flex-end">
              <TextInput
                label="Enters the flow at"
                type="datetime-local"
                value={start}
                onChange={(e) => setStart(e.currentTarget.value)}
                style={{ flex: '1 1 200px' }}
              />
              <NumberInput
                label="Follow for (days)"
                min={1}
                max={366}
                clampBehavior="strict"
                allowDecimal={false}
                value={days}
                onChange={(v) => setDays(typeof v === 'number' ? v : 90)}
                style={{ flex: '1 1 140px' }}
              />
            </Group>
            {(problem ?? simulate.isError) && (
              <Alert color="red" variant="light" icon={<IconAlertCircle size={16} />} role="alert">
                {problem ?? errorMessage(simulate.error, 'The test run could not be made. Try again.')}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button
                type="submit"
                leftSection={<IconPlayerPlay size={16} aria-hidden />}
                loading={simulate.isPending}
              >
                Run
              </Button>
            </Group>
          </Stack>
        </form>
        {simulate.data && !simulate.isPending && (
          <SimulateTimeline result={simulate.data} names={names} stepSummary={stepSummary} />
        )}
      </Stack>
    </Drawer>
  );
}
