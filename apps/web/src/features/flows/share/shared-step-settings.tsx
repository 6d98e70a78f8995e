import { decodeInputFields, type InputFields } from '@herald/contracts';
import { Stack, Table, Text } from '@mantine/core';
import type { StepNames } from '../step-display.tsx';

const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0;
const idOf = (value: unknown) =>
  value !== null && typeof value === 'object' && 'id' in value ? (value as { id: unknown }).id : undefined;
const labelOf = (key: string) =>
  key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());

/** One setting as text: emails, segments and fields by their names in the flow's own account. */
function settingText(key: string, value: unknown, names: StepNames): string {
  const id = idOf(value);
  if (key === 'email' && isId(id)) return names.email(id);
  if (key === 'segment' && isId(id)) return names.segment(id);
  if (key === 'field' && typeof value === 'string') return names.field(value);
  if (Array.isArray(value))
    return value
      .map((item) => (typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item)))
      .join(', ');
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${labelOf(k)}: ${settingText(k, v, names)}`)
      .join(' · ');
  }
  return value === null || value === undefined || value === '' ? '—' : String(value);
}

/**
 * A shared flow's step, read-only (docs/flows.md): its settings as a table, naming the
 * emails, segments and fields of the flow's own account, instead of the editing form (whose pickers list the
 * viewer's account).
 */
export function SharedStepSettings({ inputFields, names }: { inputFields: InputFields; names: StepNames }) {
  const settings = Object.entries(decodeInputFields(inputFields));
  return (
    <Stack gap="xs" data-testid="shared-step-settings">
      {settings.length > 0 ? (
        <Table withRowBorders={false} verticalSpacing={4} horizontalSpacing={0}>
          <Table.Tbody>
            {settings.map(([key, value]) => (
              <Table.Tr key={key}>
                <Table.Th w="35%" fw={600} fz="sm" style={{ verticalAlign: 'top' }}>
                  {labelOf(key)}
                </Table.Th>
                <Table.Td fz="sm" style={{ wordBreak: 'break-word' }}>
                  {settingText(key, value, names)}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : (
        <Text size="sm">This step has no settings.</Text>
      )}
      <Text size="xs" c="dimmed">
        Copy this flow to your account to change its steps.
      </Text>
    </Stack>
  );
}
