import type { PersonField } from '@herald/contracts';
import { Alert, Card, Group, Paper, Select, Stack, Table, Text } from '@mantine/core';
import { IconAlertCircle, IconCheck } from '@tabler/icons-react';
import { useEffect, useMemo, useState } from 'react';
import { fieldTypeLabels } from '../fields/field-modal.tsx';
import { useImportWizard } from './import-wizard.tsx';
import {
  choiceFieldName,
  mappableFields,
  mappingProblem,
  newFieldValue,
  skipValue,
  suggestMapping,
  type ColumnChoice,
} from './mapping.ts';
import { NewFieldModal } from './new-field-dialog.tsx';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

const choiceValue = (choice: ColumnChoice) =>
  choice.kind === 'skip' ? skipValue : choice.kind === 'new' ? `${newFieldValue}:current` : choice.name;

/** Stage 2: where each column goes. */
export function MappingStage({ fields }: { fields: PersonField[] }) {
  const { state, update } = useImportWizard();
  const isNarrow = useIsNarrow('tablet');
  const [editing, setEditing] = useState<number | null>(null);
  const header = state.preview?.header ?? [];
  const choices = state.choices ?? [];
  const mappable = useMemo(() => mappableFields(fields), [fields]);
  const existingNames = useMemo(() => fields.map((f) => f.name), [fields]);
  const problem = mappingProblem(choices, existingNames);

  const setChoice = (index: number, choice: ColumnChoice) =>
    update({ choices: choices.map((c, i) => (i === index ? choice : c)) });

  const baseData = useMemo(() => {
    const firstClass = mappable.filter((f) => f.firstClassField && f.name !== 'tags');
    const custom = mappable.filter((f) => !f.firstClassField);
    return [
      { group: 'Person fields', items: firstClass.map((f) => ({ value: f.name, label: f.title })) },
      ...(custom.length
        ? [
            {
              group: 'Custom fields',
              items: custom.map((f) => ({ value: f.name, label: f.title || f.name })),
            },
          ]
        : []),
      {
        group: 'Other',
        items: [
          { value: 'tags', label: 'Tags' },
          { value: skipValue, label: "Don't import" },
          { value: newFieldValue, label: 'New field…' },
        ],
      },
    ];
  }, [mappable]);

  const samples = (index: number) =>
    (state.preview?.rows ?? [])
      .map((r) => r[index]?.trim() ?? '')
      .filter(Boolean)
      .slice(0, 3);

  const selectFor = (column: string, index: number) => {
    const choice = choices[index] ?? { kind: 'skip' };
    const data =
      choice.kind === 'new'
        ? [
            ...baseData,
            {
              group: 'New field',
              items: [
                {
                  value: `${newFieldValue}:current`,
                  label: `New: ${choice.title} (${fieldTypeLabels[choice.type]})`,
                },
              ],
            },
          ]
        : baseData;
    return (
      <Select
        aria-label={`Field for column ${column}`}
        data={data}
        value={choiceValue(choice)}
        allowDeselect={false}
        searchable
        comboboxProps={{ withinPortal: true }}
        // The whole list, unscrolled: a list that scrolls needs a scrolling area the keyboard can reach (axe:
        // scrollable-region-focusable), which a listbox may not hold (aria-required-children). It is searchable.
        withScrollArea={false}
        onChange={(value) => {
          if (!value || value === choiceValue(choice)) return;
          if (value === newFieldValue) setEditing(index);
          else if (value === skipValue) setChoice(index, { kind: 'skip' });
          else if (!value.startsWith(newFieldValue)) setChoice(index, { kind: 'field', name: value });
        }}
        w={isNarrow ? '100%' : 260}
      />
    );
  };

  const sampleText = (index: number) => {
    const values = samples(index);
    return values.length ? (
      <Text size="sm" c="dimmed" lineClamp={2} style={{ wordBreak: 'break-word' }}>
        {values.join(', ')}
      </Text>
    ) : (
      <Text size="sm" c="dimmed" fs="italic">
        No values in the first rows
      </Text>
    );
  };

  const editingChoice = editing === null ? null : choices[editing];
  const editingColumn = editing === null ? '' : (header[editing] ?? '');
  // Names other columns' new fields already take count as taken too.
  const takenNames = [
    ...existingNames,
    ...choices.flatMap((c, i) => (c.kind === 'new' && i !== editing ? [choiceFieldName(c)!] : [])),
  ];

  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        Choose the person field each column fills. Exactly one column must be the email; columns set to “Don't
        import” are left out.
      </Text>
      {isNarrow ? (
        <Stack gap="sm">
          {header.map((column, index) => (
            <Paper key={index} withBorder radius="md" p="sm">
              <Stack gap={6}>
                <Text fw={600} style={{ wordBreak: 'break-word' }}>
                  {column || `Column ${index + 1}`}
                </Text>
                {sampleText(index)}
                {selectFor(column, index)}
              </Stack>
            </Paper>
          ))}
        </Stack>
      ) : (
        <Card withBorder radius="md" p={0}>
          <Table verticalSpacing="sm" horizontalSpacing="md" aria-label="Column mapping">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w="28%">Column</Table.Th>
                <Table.Th>Sample values</Table.Th>
                <Table.Th w={290}>Field</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {header.map((column, index) => (
                <Table.Tr key={index}>
                  <Table.Td>
                    <Text fw={600} size="sm" style={{ wordBreak: 'break-word' }}>
                      {column || `Column ${index + 1}`}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ maxWidth: 320 }}>{sampleText(index)}</Table.Td>
                  <Table.Td>{selectFor(column, index)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      )}
      {problem ? (
        <Alert color="orange" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
          {problem}
        </Alert>
      ) : (
        <Group gap={6}>
          <IconCheck size={16} color="var(--mantine-color-teal-6)" />
          <Text size="sm" c="dimmed">
            {choices.filter((c) => c.kind !== 'skip').length} of {header.length} columns will be imported.
          </Text>
        </Group>
      )}
      <NewFieldModal
        column={editingColumn}
        opened={editing !== null}
        initial={
          editingChoice?.kind === 'new'
            ? { title: editingChoice.title, type: editingChoice.type }
            : { title: editingColumn, type: 'string' }
        }
        existingNames={takenNames}
        onClose={() => setEditing(null)}
        onSave={(value) => {
          if (editing !== null) setChoice(editing, { kind: 'new', ...value });
          setEditing(null);
        }}
      />
    </Stack>
  );
}

/** Sets the suggested mapping the first time the mapping stage opens. */
export function useInitialMapping(fields: PersonField[] | undefined) {
  const { state, update } = useImportWizard();
  useEffect(() => {
    if (state.choices === null && state.preview && fields) {
      update({ choices: suggestMapping(state.preview.header, mappableFields(fields)) });
    }
  }, [state.choices, state.preview, fields, update]);
}
