import { cleanFieldName, personFieldTypes, type PersonField, type PersonFieldType } from '@herald/contracts';
import {
  ActionIcon,
  Button,
  Group,
  Modal,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { fieldMessages, useCreateField, useDeleteField, useUpdateField } from './fields.api.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

export const fieldEditParam = 'custom-field-edit';
export const newFieldParam = 'new';

export const fieldTypeLabels: Record<PersonFieldType, string> = {
  string: 'Text',
  number: 'Number',
  boolean: 'Yes / no',
  date: 'Date',
  enum: 'Choice list',
};

interface EnumRow {
  value: string;
  label: string;
}

function FieldForm({ field, onClose }: { field: PersonField | null; onClose: () => void }) {
  const isNew = field === null;
  const create = useCreateField();
  const update = useUpdateField();
  const remove = useDeleteField();
  const [name, setName] = useState(field?.name ?? '');
  const [title, setTitle] = useState(field?.title ?? '');
  const [type, setType] = useState<PersonFieldType>(field?.type ?? 'string');
  const [tooltip, setTooltip] = useState(field?.tooltip ?? '');
  const [allowNew, setAllowNew] = useState(field?.allowNewEnumValues ?? false);
  const [enumRows, setEnumRows] = useState<EnumRow[]>(
    (field?.enum ?? []).map((value, i) => ({ value, label: field?.enumNames?.[i] ?? '' })),
  );
  const [isSubmitted, setIsSubmitted] = useState(false);
  const cleaned = cleanFieldName(name);
  const nameError =
    isSubmitted && isNew && !cleaned ? 'A field name needs at least one letter or digit.' : null;
  const enumValues = enumRows.map((r) => r.value.trim()).filter(Boolean);
  const enumError =
    isSubmitted && type === 'enum' && enumValues.length === 0 && !allowNew ? 'Add at least one value.' : null;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setIsSubmitted(true);
    if ((isNew && !cleaned) || (type === 'enum' && enumValues.length === 0 && !allowNew)) return;
    const rows = enumRows.filter((r) => r.value.trim());
    const enumPart =
      type === 'enum'
        ? {
            enum: rows.map((r) => r.value.trim()),
            enumNames: rows.map((r) => r.label.trim() || r.value.trim()),
            allowNewEnumValues: allowNew,
          }
        : {};
    if (isNew) {
      create.mutate(
        {
          name: cleaned,
          type,
          ...(title.trim() ? { title: title.trim() } : {}),
          ...(tooltip.trim() ? { tooltip: tooltip.trim() } : {}),
          ...enumPart,
        },
        {
          onSuccess: () => {
            notifySuccess(fieldMessages.created);
            onClose();
          },
          onError: (error) => notifyError(error, fieldMessages.createFailed),
        },
      );
      return;
    }
    update.mutate(
      { name: field.name, title: title.trim(), tooltip: tooltip.trim(), ...enumPart },
      {
        onSuccess: () => {
          notifySuccess(fieldMessages.saved);
          onClose();
        },
        onError: (error) => notifyError(error, fieldMessages.editFailed),
      },
    );
  };

  const confirmDelete = () => {
    if (!field) return;
    modals.openConfirmModal({
      title: `Delete field “${field.title || field.name}”?`,
      children: (
        <Text size="sm">
          The field and every person's value for it are deleted. Flows and segments using it stop working.
        </Text>
      ),
      labels: { confirm: 'Delete', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(field.name, {
          onSuccess: () => {
            notifySuccess(fieldMessages.deleted);
            onClose();
          },
          onError: (error) => notifyError(error, fieldMessages.deleteFailed),
        }),
    });
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <TextInput
          label="Name"
          description={
            isNew
              ? 'Used in the API, imports and merge tags. Letters, digits, dots, hyphens and underscores.'
              : 'The name cannot change.'
          }
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          readOnly={!isNew}
          variant={isNew ? 'default' : 'filled'}
          error={nameError}
          maxLength={100}
          data-autofocus
        />
        {isNew && name && (
          <Text size="sm" c="dimmed" aria-live="polite">
            Saved as:{' '}
            <Text span ff="monospace" c="dark">
              {cleaned || '—'}
            </Text>
          </Text>
        )}
        <TextInput
          label="Title"
          description="How the field is shown to you."
          value={title}
          onChange={(event) => setTitle(event.currentTarget.value)}
          maxLength={200}
        />
        <Select
          label="Type"
          data={personFieldTypes.map((t) => ({ value: t, label: fieldTypeLabels[t] }))}
          value={type}
          onChange={(value) => value && setType(value as PersonFieldType)}
          disabled={!isNew}
          allowDeselect={false}
          description={isNew ? undefined : 'The type of a field cannot change.'}
          comboboxProps={{ withinPortal: true }}
        />
        {type === 'enum' && (
          <Stack gap="xs" role="group" aria-label="Values">
            <Text size="sm" fw={500}>
              Values
            </Text>
            {enumRows.map((row, index) => (
              <Group key={index} gap="xs" wrap="nowrap" align="flex-start">
                <TextInput
                  aria-label={`Value ${index + 1}`}
                  placeholder="Value"
                  value={row.value}
                  onChange={(event) => {
                    const value = event.currentTarget.value;
                    setEnumRows((rows) => rows.map((r, i) => (i === index ? { ...r, value } : r)));
                  }}
                  style={{ flex: 1 }}
                  maxLength={200}
                />
                <TextInput
                  aria-label={`Label ${index + 1}`}
                  placeholder="Label (optional)"
                  value={row.label}
                  onChange={(event) => {
                    const label = event.currentTarget.value;
                    setEnumRows((rows) => rows.map((r, i) => (i === index ? { ...r, label } : r)));
                  }}
                  style={{ flex: 1 }}
                  maxLength={200}
                />
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  size="lg"
                  aria-label={`Remove value ${index + 1}`}
                  onClick={() => setEnumRows((rows) => rows.filter((_, i) => i !== index))}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              </Group>
            ))}
            {enumError && (
              <Text size="xs" c="red">
                {enumError}
              </Text>
            )}
            <Button
              variant="light"
              size="xs"
              w="fit-content"
              leftSection={<IconPlus size={14} />}
              onClick={() => setEnumRows((rows) => [...rows, { value: '', label: '' }])}
            >
              Add value
            </Button>
            <Switch
              label="Allow new values"
              description="People may get values not in this list (from imports or the API)."
              checked={allowNew}
              onChange={(event) => setAllowNew(event.currentTarget.checked)}
            />
          </Stack>
        )}
        <Textarea
          label="Tooltip"
          description="A hint shown next to the field."
          value={tooltip}
          onChange={(event) => setTooltip(event.currentTarget.value)}
          autosize
          minRows={2}
          maxLength={500}
        />
        <Group justify="space-between" gap="sm" mt="sm">
          {isNew ? (
            <span />
          ) : (
            <Button variant="subtle" color="red" onClick={confirmDelete} loading={remove.isPending}>
              Delete
            </Button>
          )}
          <Group gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending || update.isPending}>
              {isNew ? 'Create' : 'Save'}
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}

interface FieldModalProps {
  param: string | null;
  fields: PersonField[] | undefined;
  onClose: () => void;
}

/** The custom-field popup, opened by ?custom-field-edit=new or ?custom-field-edit={name}. */
export function FieldModal({ param, fields, onClose }: FieldModalProps) {
  const isSmall = useIsNarrow('phone');
  const isNew = param === newFieldParam;
  const field = !isNew && param !== null ? (fields?.find((f) => f.name === param) ?? null) : null;
  const isOpen = param !== null && (isNew || field !== null);
  return (
    <Modal
      opened={isOpen}
      onClose={onClose}
      title={isNew ? 'New field' : 'Edit field'}
      size="lg"
      centered
      fullScreen={isSmall}
    >
      {isOpen && <FieldForm key={param} field={field} onClose={onClose} />}
    </Modal>
  );
}
