import {
  firstClassFields,
  maxFieldValueLength,
  peopleMessages,
  readOnlyFieldNames,
  type Person,
  type PersonField,
} from '@herald/contracts';
import {
  Autocomplete,
  Button,
  Card,
  Group,
  NumberInput,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useState, type FormEvent, type ReactNode } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useUpdatePerson } from './people.api.ts';
import { FieldValue } from './person-values.tsx';

/** Built-in fields a person write may set (the rest are the system's). */
const writableFirstClass = new Set([
  'email',
  'firstName',
  'lastName',
  'phone',
  'company',
  'website',
  'userId',
]);
const hiddenInPanel = new Set(['tags']);

type FormValue = string | number | boolean | null;

function toFormValue(field: PersonField, value: unknown): FormValue {
  if (value === null || value === undefined)
    return field.type === 'boolean' ? false : field.type === 'number' ? null : '';
  if (field.array && Array.isArray(value)) return value.join(', ');
  if (field.type === 'boolean') return Boolean(value);
  if (field.type === 'number') return typeof value === 'number' ? value : Number(value);
  if (field.type === 'date' && typeof value === 'string') return value.slice(0, 10);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The value to send: empty text clears the field (null). */
function toPayload(field: PersonField, value: FormValue): unknown {
  if (value === '' || value === null) return null;
  if (field.array && typeof value === 'string') {
    const parts = value
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    return field.type === 'number' ? parts.map(Number) : parts;
  }
  if (field.type === 'date' && typeof value === 'string') return new Date(`${value}T00:00:00Z`).toISOString();
  return value;
}

function fallbackFields(): PersonField[] {
  return firstClassFields.map((f) => ({
    name: f.name,
    type: f.type,
    title: f.title,
    icon: null,
    tooltip: null,
    format: null,
    readOnly: (readOnlyFieldNames as readonly string[]).includes(f.name),
    canMapFrom: true,
    firstClassField: true,
    array: false,
    createdBy: 'system',
    enum: null,
    enumNames: null,
    allowNewEnumValues: false,
  }));
}

function isWritable(field: PersonField): boolean {
  if (field.firstClassField) return writableFirstClass.has(field.name);
  return !field.readOnly && field.createdBy !== 'system' && field.name !== 'unsubscribeReason';
}

function FieldLabel({ field }: { field: PersonField }) {
  return (
    <Group gap={4} wrap="nowrap">
      <Text size="sm" c="dimmed">
        {field.title || field.name}
      </Text>
      {field.tooltip && (
        <Tooltip label={field.tooltip} withArrow multiline maw={260}>
          <IconInfoCircle size={14} color="var(--mantine-color-dimmed)" aria-label={field.tooltip} />
        </Tooltip>
      )}
    </Group>
  );
}

function FieldInput({
  field,
  value,
  onChange,
  error,
}: {
  field: PersonField;
  value: FormValue;
  onChange: (v: FormValue) => void;
  error: string | null;
}): ReactNode {
  const label = field.title || field.name;
  const common = { label, description: field.tooltip ?? undefined, error };
  if (field.array) {
    return (
      <TextInput
        {...common}
        description="Separate values with commas."
        value={String(value ?? '')}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
    );
  }
  switch (field.type) {
    case 'number':
      return (
        <NumberInput
          {...common}
          value={typeof value === 'number' && !Number.isNaN(value) ? value : ''}
          onChange={(v) => onChange(typeof v === 'number' ? v : v === '' ? null : Number(v))}
        />
      );
    case 'boolean':
      return (
        <Switch
          label={label}
          description={field.tooltip ?? undefined}
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
      );
    case 'date':
      return (
        <TextInput
          {...common}
          type="date"
          value={String(value ?? '')}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'enum': {
      const data = (field.enum ?? []).map((v, i) => ({ value: v, label: field.enumNames?.[i] || v }));
      if (field.allowNewEnumValues)
        return (
          <Autocomplete
            {...common}
            data={data.map((d) => d.value)}
            value={String(value ?? '')}
            onChange={(v) => onChange(v)}
            maxLength={maxFieldValueLength}
          />
        );
      return (
        <Select
          {...common}
          data={data}
          value={value === '' || value === null ? null : String(value)}
          onChange={(v) => onChange(v ?? '')}
          clearable
        />
      );
    }
    default:
      return (
        <TextInput
          {...common}
          type={field.name === 'email' ? 'email' : 'text'}
          value={String(value ?? '')}
          onChange={(e) => onChange(e.currentTarget.value)}
          maxLength={maxFieldValueLength}
        />
      );
  }
}

interface PanelProps {
  person: Person;
  fields: PersonField[] | undefined;
  isEditing: boolean;
  canWrite: boolean;
  onEditingChange: (editing: boolean) => void;
}

/** A person's first-class and custom fields; in edit mode, a form with an input for each field type. */
export function PersonFieldsPanel({ person, fields, isEditing, canWrite, onEditingChange }: PanelProps) {
  const list = (fields ?? fallbackFields()).filter((f) => !hiddenInPanel.has(f.name));
  return (
    <Card withBorder radius="md" p="lg">
      <Group justify="space-between" mb="md">
        <Title order={2} fz={18}>
          Fields
        </Title>
        {canWrite && !isEditing && (
          <Text size="xs" c="dimmed">
            Use Edit above to change
          </Text>
        )}
      </Group>
      {isEditing ? (
        <FieldsForm
          key={person.updatedAt}
          person={person}
          fields={list.filter(isWritable)}
          onDone={() => onEditingChange(false)}
        />
      ) : (
        <Stack gap="sm">
          {list.map((field) => (
            <Stack key={field.name} gap={0}>
              <FieldLabel field={field} />
              <FieldValue person={person} name={field.name} type={field.type} />
            </Stack>
          ))}
        </Stack>
      )}
    </Card>
  );
}

function FieldsForm({
  person,
  fields,
  onDone,
}: {
  person: Person;
  fields: PersonField[];
  onDone: () => void;
}) {
  const update = useUpdatePerson(person.id);
  const initial = Object.fromEntries(fields.map((f) => [f.name, toFormValue(f, person[f.name])]));
  const [values, setValues] = useState<Record<string, FormValue>>(initial);
  const errorOf = (field: PersonField): string | null => {
    const value = values[field.name];
    if (field.name === 'email' && !String(value ?? '').trim()) return 'Email is required.';
    if (typeof value === 'string' && value.length > maxFieldValueLength)
      return `At most ${maxFieldValueLength} characters.`;
    return null;
  };
  const hasErrors = fields.some((f) => errorOf(f) !== null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (hasErrors) return;
    const body: Record<string, unknown> = {};
    for (const field of fields) {
      if (values[field.name] !== initial[field.name])
        body[field.name] = toPayload(field, values[field.name] ?? null);
    }
    if (Object.keys(body).length === 0) {
      onDone();
      return;
    }
    update.mutate(body, {
      onSuccess: ({ message }) => {
        notifySuccess(message || peopleMessages.personUpdated);
        onDone();
      },
      onError: (error) => notifyError(error, 'Error while updating this person.'),
    });
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="sm">
        {fields.map((field) => (
          <FieldInput
            key={field.name}
            field={field}
            value={values[field.name] ?? null}
            onChange={(v) => setValues((current) => ({ ...current, [field.name]: v }))}
            error={errorOf(field)}
          />
        ))}
        <Group justify="flex-end" gap="sm" mt="xs">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={update.isPending} disabled={hasErrors}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
