import type { Import } from '@herald/contracts';
import { Badge, Group, Progress, Stack, Text } from '@mantine/core';
import { isRunning } from './imports.api.ts';

const statusLabels: Record<Import['status'], { label: string; color: string }> = {
  queued: { label: 'Queued', color: 'gray' },
  parsing: { label: 'Reading file', color: 'blue' },
  importing: { label: 'Importing', color: 'indigo' },
  done: { label: 'Done', color: 'teal' },
  failed: { label: 'Failed', color: 'red' },
};

export function ImportStatusBadge({ imp }: { imp: Import }) {
  const { label, color } = statusLabels[imp.status];
  return (
    <Badge color={color} variant="light" tt="none">
      {label}
    </Badge>
  );
}

export function ImportProgress({ imp, withLabel = false }: { imp: Import; withLabel?: boolean }) {
  const percent = Math.round(imp.progress * 100);
  const running = isRunning(imp);
  const color = imp.status === 'failed' ? 'red' : imp.status === 'done' ? 'teal' : 'indigo';
  return (
    <Stack gap={4}>
      {withLabel && (
        <Group justify="space-between" gap="xs">
          <Text size="sm" c="dimmed">
            {imp.totalRows !== null
              ? `${imp.totalRows.toLocaleString()} ${imp.totalRows === 1 ? 'row' : 'rows'} in the file`
              : `About ${imp.numPeople.toLocaleString()} rows`}
          </Text>
          <Text size="sm" fw={500}>
            {percent}%
          </Text>
        </Group>
      )}
      <Progress
        value={imp.status === 'failed' ? 100 : percent}
        color={color}
        striped={running}
        animated={running}
        aria-label={`Progress of ${imp.name}`}
        size={withLabel ? 'lg' : 'md'}
      />
    </Stack>
  );
}

export const countLabels: { key: keyof Import['counts']; label: string; color?: string }[] = [
  { key: 'created', label: 'Created' },
  { key: 'updated', label: 'Updated' },
  { key: 'skipped', label: 'Skipped' },
  { key: 'failed', label: 'Failed', color: 'red' },
  { key: 'duplicates', label: 'Duplicates' },
];

/** "3 created · 1 failed", leaving out the zeros. */
export function countsSummary(imp: Import): string {
  const parts = countLabels
    .filter((c) => imp.counts[c.key] > 0)
    .map((c) => `${imp.counts[c.key].toLocaleString()} ${c.label.toLowerCase()}`);
  return parts.length ? parts.join(' · ') : '—';
}
