import type {
  FlowSnapshot,
  FlowSnapshotLink,
  FlowSnapshotStep,
  SettingChange,
  VersionDiff,
} from '@herald/contracts';
import { Badge, Box, Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { summariseStep, type StepNames } from '../step-display.tsx';

/** A setting's value as a person reads it. */
export function formatValue(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const settingNames: Record<string, string> = {
  reentry: 'Re-entry',
  reentryDays: 'Re-entry after days',
  operation: 'Step type',
};
const settingName = (path: string) => settingNames[path] ?? path.replace(/\./g, ' › ');

interface DiffViewProps {
  diff: VersionDiff;
  /** The newer version's snapshot: with the removed steps, it names every step a link touches. */
  newer: FlowSnapshot;
  olderLabel: string;
  newerLabel: string;
  names: StepNames;
  label: (operationKey: string) => string;
}

/** Two versions side by side: each step added, removed or changed (setting by setting), each link, the flow's settings. */
export function VersionDiffView({ diff, newer, olderLabel, newerLabel, names, label }: DiffViewProps) {
  const steps = new Map<number, FlowSnapshotStep>(
    [...diff.steps.removed, ...newer.steps].map((s) => [s.id, s]),
  );
  const stepName = (step: FlowSnapshotStep) => `${label(step.operationKey)} #${step.id}`;
  const describe = (step: FlowSnapshotStep) =>
    summariseStep(step.operationKey, step.inputFields, names) ?? 'Not set up';
  const linkText = (link: FlowSnapshotLink) => {
    const from = steps.get(link.source);
    const to = steps.get(link.target);
    return `${from ? stepName(from) : `#${link.source}`} → ${to ? stepName(to) : `#${link.target}`}${link.condition ? ` (${link.condition})` : ''}`;
  };
  const rows: Array<{ key: string; what: ReactNode; before: ReactNode; after: ReactNode }> = [];
  for (const step of diff.steps.removed)
    rows.push({
      key: `r${step.id}`,
      what: (
        <Badge color="red" variant="light" c="red.9">
          Step removed
        </Badge>
      ),
      before: <StepCell name={stepName(step)} text={describe(step)} />,
      after: '—',
    });
  for (const step of diff.steps.added)
    rows.push({
      key: `a${step.id}`,
      what: (
        <Badge color="teal" variant="light" c="teal.9">
          Step added
        </Badge>
      ),
      before: '—',
      after: <StepCell name={stepName(step)} text={describe(step)} />,
    });
  for (const change of diff.steps.changed) {
    rows.push({
      key: `c${change.after.id}`,
      what: (
        <Stack gap={2}>
          <Badge color="yellow" variant="light" c="dark.7">
            Step changed
          </Badge>
          <Text size="sm" fw={500}>
            {stepName(change.after)}
          </Text>
        </Stack>
      ),
      before: <Changes summary={describe(change.before)} changes={change.settings} side="before" />,
      after: <Changes summary={describe(change.after)} changes={change.settings} side="after" />,
    });
  }
  for (const link of diff.links.removed)
    rows.push({
      key: `lr${link.source}-${link.target}`,
      what: (
        <Badge color="red" variant="outline" c="red.9">
          Link removed
        </Badge>
      ),
      before: linkText(link),
      after: '—',
    });
  for (const link of diff.links.added)
    rows.push({
      key: `la${link.source}-${link.target}`,
      what: (
        <Badge color="teal" variant="outline" c="teal.9">
          Link added
        </Badge>
      ),
      before: '—',
      after: linkText(link),
    });
  for (const change of diff.settings)
    rows.push({
      key: `s${change.path}`,
      what: (
        <Text size="sm" fw={500}>
          {settingName(change.path)}
        </Text>
      ),
      before: formatValue(change.before),
      after: formatValue(change.after),
    });

  if (rows.length === 0)
    return (
      <Text size="sm" c="dimmed">
        These two versions do the same thing: no step, link or setting differs.
      </Text>
    );
  return (
    // A region that scrolls sideways on narrow screens, reachable with the keyboard.
    <Box
      role="region"
      aria-label={`Differences between ${olderLabel} and ${newerLabel}`}
      tabIndex={0}
      style={{ overflowX: 'auto' }}
    >
      <Table miw={520} verticalSpacing="xs" withTableBorder withColumnBorders data-testid="version-diff">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={150}>Change</Table.Th>
            <Table.Th>{olderLabel}</Table.Th>
            <Table.Th>{newerLabel}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.key}>
              <Table.Td>{row.what}</Table.Td>
              <Table.Td style={{ wordBreak: 'break-word' }}>{row.before}</Table.Td>
              <Table.Td style={{ wordBreak: 'break-word' }}>{row.after}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Box>
  );
}

function StepCell({ name, text }: { name: string; text: string }) {
  return (
    <Stack gap={0}>
      <Text size="sm" fw={500}>
        {name}
      </Text>
      <Text size="xs" c="dimmed">
        {text}
      </Text>
    </Stack>
  );
}

function Changes({
  summary,
  changes,
  side,
}: {
  summary: string;
  changes: SettingChange[];
  side: 'before' | 'after';
}) {
  return (
    <Stack gap={2}>
      <Text size="sm" fw={500}>
        {summary}
      </Text>
      {changes.map((change) => (
        <Text key={change.path} size="xs">
          <Text span c="dimmed" size="xs">
            {settingName(change.path)}:
          </Text>{' '}
          {formatValue(change[side])}
        </Text>
      ))}
    </Stack>
  );
}
