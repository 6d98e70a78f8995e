import type { PersonField } from '@herald/contracts';
import { Badge, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { fieldTypeLabels } from '../fields/field-modal.tsx';
import { useImportWizard } from './import-wizard.tsx';
import { formatBytes, rowsLabel, UploadProgress } from './upload-stage.tsx';

function SummaryRow({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Group align="flex-start" gap="md" wrap="nowrap">
      <Text size="sm" c="dimmed" w={140} style={{ flexShrink: 0 }}>
        {label}
      </Text>
      <div style={{ minWidth: 0, flex: 1 }}>{children}</div>
    </Group>
  );
}

/** Stage 4: what will happen. */
export function ConfirmStage({ fields }: { fields: PersonField[] }) {
  const { state } = useImportWizard();
  const header = state.preview?.header ?? [];
  const choices = state.choices ?? [];
  const titleOf = (name: string) => fields.find((f) => f.name === name)?.title ?? name;
  const mapped = header.flatMap((column, i) => {
    const choice = choices[i];
    if (!choice || choice.kind === 'skip') return [];
    const target =
      choice.kind === 'new'
        ? `${choice.title} (new ${fieldTypeLabels[choice.type].toLowerCase()} field)`
        : titleOf(choice.name);
    return [{ column, target }];
  });
  const skipped = header.filter((_c, i) => (choices[i]?.kind ?? 'skip') === 'skip');
  return (
    <Stack gap="md">
      <Stack gap="sm">
        <SummaryRow label="File">
          <Text size="sm" fw={500} style={{ wordBreak: 'break-all' }}>
            {state.file?.name} ({formatBytes(state.file?.size ?? 0)})
          </Text>
        </SummaryRow>
        <SummaryRow label="Rows">
          <Text size="sm">{state.rowCount === null ? 'Counting rows…' : rowsLabel(state.rowCount)}</Text>
        </SummaryRow>
        <SummaryRow label="Mapped columns">
          <Stack gap={2}>
            {mapped.map((m, i) => (
              <Text size="sm" key={i}>
                {m.column} → <b>{m.target}</b>
              </Text>
            ))}
          </Stack>
        </SummaryRow>
        {skipped.length > 0 && (
          <SummaryRow label="Not imported">
            <Text size="sm" c="dimmed">
              {skipped.join(', ')}
            </Text>
          </SummaryRow>
        )}
        <SummaryRow label="Tags">
          {state.tags.length ? (
            <Group gap={6}>
              {state.tags.map((t) => (
                <Badge key={t} variant="light" tt="none">
                  {t}
                </Badge>
              ))}
            </Group>
          ) : (
            <Text size="sm" c="dimmed">
              None
            </Text>
          )}
        </SummaryRow>
        <SummaryRow label="Existing people">
          <Text size="sm">
            {state.strategy === 'update' ? 'Update existing people' : 'Skip existing people'}
          </Text>
        </SummaryRow>
        <SummaryRow label="Import name">
          <Text size="sm">{state.name.trim() || 'Named after the date'}</Text>
        </SummaryRow>
      </Stack>
      {state.upload.status !== 'done' && <UploadProgress />}
      <Text size="sm" c="dimmed">
        Large files take a few minutes. You can leave the import page: the import runs on, and the list of
        imports shows its progress.
      </Text>
    </Stack>
  );
}
