import { normaliseTag, personFieldTypes, type PersonField, type PersonFieldType } from '@herald/contracts';
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  Paper,
  Progress,
  Radio,
  Select,
  Stack,
  Table,
  TagsInput,
  Text,
  TextInput,
  ThemeIcon,
  VisuallyHidden,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconAlertCircle, IconCheck, IconFileSpreadsheet, IconUpload } from '@tabler/icons-react';
import { useEffect, useMemo, useState, type DragEvent, type FormEvent, type ReactNode } from 'react';
import { fieldTypeLabels } from '../fields/field-modal.tsx';
import { useTags } from '../tags/tags.api.ts';
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

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export const rowsLabel = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'row' : 'rows'}`;

/** The upload's state in one line with a bar. */
export function UploadProgress() {
  const { state, retryUpload } = useImportWizard();
  const { upload } = state;
  if (upload.status === 'idle') return null;
  if (upload.status === 'failed')
    return (
      <Alert
        color="red"
        variant="light"
        icon={<IconAlertCircle size={18} />}
        role="alert"
        title="Upload failed"
      >
        <Stack gap="xs">
          <Text size="sm">{upload.error}</Text>
          <Button size="xs" variant="light" color="red" w="fit-content" onClick={retryUpload}>
            Try again
          </Button>
        </Stack>
      </Alert>
    );
  const percent = Math.round(upload.progress * 100);
  return (
    <Stack gap={4}>
      <Group justify="space-between" gap="xs">
        <Text size="sm" fw={500}>
          {upload.status === 'done' ? 'Uploaded' : 'Uploading…'}
        </Text>
        <Text size="sm" c="dimmed">
          {percent}%
        </Text>
      </Group>
      <Progress
        value={percent}
        color={upload.status === 'done' ? 'teal' : 'indigo'}
        animated={upload.status === 'uploading'}
        aria-label="Upload progress"
      />
    </Stack>
  );
}

function PreviewTable() {
  const { state } = useImportWizard();
  if (!state.preview) return null;
  const { header, rows } = state.preview;
  return (
    <Stack gap={6}>
      <Text size="sm" fw={600}>
        Preview
      </Text>
      <Card withBorder radius="md" p={0}>
        <Table.ScrollContainer minWidth={Math.max(320, header.length * 140)}>
          <Table verticalSpacing={6} horizontalSpacing="sm" fz="sm" striped aria-label="File preview">
            <Table.Thead>
              <Table.Tr>
                {header.map((h, i) => (
                  <Table.Th key={i}>{h || `Column ${i + 1}`}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, r) => (
                <Table.Tr key={r}>
                  {header.map((_h, i) => (
                    <Table.Td
                      key={i}
                      style={{
                        maxWidth: 240,
                        overflow: 'hidden',
                        textOverflow: 'ellipsis',
                        whiteSpace: 'nowrap',
                      }}
                    >
                      {row[i] ?? ''}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
    </Stack>
  );
}

/** Stage 1: choose the file; it is previewed, counted and uploaded at once. */
export function UploadStage() {
  const { state, chooseFile } = useImportWizard();
  const [isDragging, setIsDragging] = useState(false);
  const { file } = state;

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setIsDragging(false);
    const dropped = event.dataTransfer.files[0];
    if (dropped) chooseFile(dropped);
  };

  return (
    <Stack gap="md">
      <Paper
        component="label"
        withBorder
        radius="md"
        p="xl"
        onDragOver={(e: DragEvent) => {
          e.preventDefault();
          setIsDragging(true);
        }}
        onDragLeave={() => setIsDragging(false)}
        onDrop={onDrop}
        style={{
          cursor: 'pointer',
          borderStyle: 'dashed',
          borderWidth: 2,
          borderColor: isDragging ? 'var(--mantine-color-indigo-5)' : undefined,
          background: isDragging ? 'var(--mantine-color-indigo-light)' : 'var(--mantine-color-gray-0)',
        }}
      >
        <Stack align="center" gap="xs" ta="center">
          <ThemeIcon size={48} radius="xl" variant="light">
            <IconUpload size={24} />
          </ThemeIcon>
          <Text fw={600}>Drop a CSV file here or click to choose one</Text>
          <Text size="sm" c="dimmed">
            The first line must hold the column names. Comma, semicolon and tab separated files work.
          </Text>
          <Button component="span" variant="light" leftSection={<IconFileSpreadsheet size={16} />}>
            Choose file
          </Button>
        </Stack>
        <VisuallyHidden>
          <input
            type="file"
            accept=".csv,text/csv"
            aria-label="CSV file"
            onChange={(e) => {
              chooseFile(e.currentTarget.files?.[0] ?? null);
              e.currentTarget.value = '';
            }}
          />
        </VisuallyHidden>
      </Paper>

      {file && (
        <Card withBorder radius="md" p="md">
          <Stack gap="sm">
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
                <IconFileSpreadsheet size={20} />
                <Text fw={600} style={{ wordBreak: 'break-all' }}>
                  {file.name}
                </Text>
                <Text size="sm" c="dimmed">
                  {formatBytes(file.size)}
                </Text>
              </Group>
              {state.isCounting ? (
                <Text size="sm" c="dimmed">
                  Counting rows…
                </Text>
              ) : state.rowCount !== null ? (
                <Badge variant="light" size="lg">
                  {rowsLabel(state.rowCount)}
                </Badge>
              ) : null}
            </Group>
            {state.fileError ? (
              <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
                {state.fileError}
              </Alert>
            ) : (
              <UploadProgress />
            )}
          </Stack>
        </Card>
      )}
      {!state.fileError && <PreviewTable />}
    </Stack>
  );
}

const newFieldTypes = personFieldTypes.filter((t) => t !== 'enum');

function NewFieldModal({
  column,
  opened,
  initial,
  existingNames,
  onClose,
  onSave,
}: {
  column: string;
  opened: boolean;
  initial: { title: string; type: PersonFieldType };
  existingNames: string[];
  onClose: () => void;
  onSave: (value: { title: string; type: PersonFieldType }) => void;
}) {
  const [title, setTitle] = useState(initial.title);
  const [type, setType] = useState<PersonFieldType>(initial.type);
  const [isSubmitted, setIsSubmitted] = useState(false);
  const isNarrow = useMediaQuery('(max-width: 599px)');
  useEffect(() => {
    if (opened) {
      setTitle(initial.title);
      setType(initial.type);
      setIsSubmitted(false);
    }
  }, [opened, initial.title, initial.type]);
  const name = title.trim() ? choiceFieldName({ kind: 'new', title, type }) : '';
  const error = !title.trim()
    ? isSubmitted
      ? 'Give the field a title.'
      : null
    : !name
      ? 'A field name needs at least one letter or digit.'
      : existingNames.includes(name)
        ? `A field named ${name} already exists.`
        : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    event.stopPropagation();
    setIsSubmitted(true);
    if (!title.trim() || error) return;
    onSave({ title: title.trim(), type });
  };
  return (
    <Modal opened={opened} onClose={onClose} title="New field" fullScreen={isNarrow} centered>
      <form onSubmit={submit}>
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            The values of column “{column}” go into a new person field, created when the import starts.
          </Text>
          <TextInput
            label="Field title"
            value={title}
            onChange={(e) => setTitle(e.currentTarget.value)}
            error={error}
            description={name ? `Name: ${name}` : undefined}
            maxLength={200}
            data-autofocus
          />
          <Select
            label="Field type"
            data={newFieldTypes.map((t) => ({ value: t, label: fieldTypeLabels[t] }))}
            value={type}
            onChange={(v) => v && setType(v as PersonFieldType)}
            allowDeselect={false}
          />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit">Add field</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

const choiceValue = (choice: ColumnChoice) =>
  choice.kind === 'skip' ? skipValue : choice.kind === 'new' ? `${newFieldValue}:current` : choice.name;

/** Stage 2: where each column goes. */
export function MappingStage({ fields }: { fields: PersonField[] }) {
  const { state, update } = useImportWizard();
  const isNarrow = useMediaQuery('(max-width: 767px)');
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
        maxDropdownHeight={280}
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

/** Stage 3: tags for everyone, the import's name, and what happens to people who already exist. */
export function TagsStage() {
  const { state, update } = useImportWizard();
  const tags = useTags();
  const suggestions = useMemo(() => (tags.data?.tags ?? []).map((t) => t.tag), [tags.data]);
  return (
    <Stack gap="lg" maw={560}>
      <TagsInput
        size="md"
        label="Tags"
        description="Added to everyone in this import. Press Enter or type a comma after each tag."
        placeholder={state.tags.length ? undefined : 'Add a tag'}
        data={suggestions}
        value={state.tags}
        onChange={(values) => update({ tags: [...new Set(values.map(normaliseTag).filter(Boolean))] })}
        maxTags={100}
        clearable
        acceptValueOnBlur
      />
      <TextInput
        label="Import name"
        description="Shown in the list of imports."
        value={state.name}
        onChange={(e) => update({ name: e.currentTarget.value })}
        maxLength={200}
      />
      <Radio.Group
        label="People who are already in Herald"
        description="Matched by email."
        value={state.strategy}
        onChange={(value) => update({ strategy: value === 'ignore' ? 'ignore' : 'update' })}
      >
        <Stack gap="sm" mt="xs">
          <Radio
            value="update"
            label="Update existing people"
            description="Fill their fields with the values in the file and add the tags."
          />
          <Radio
            value="ignore"
            label="Skip existing people"
            description="Leave them as they are; only new people are added."
          />
        </Stack>
      </Radio.Group>
    </Stack>
  );
}

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
