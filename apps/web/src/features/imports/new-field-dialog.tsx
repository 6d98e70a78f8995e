import { personFieldTypes, type PersonFieldType } from '@herald/contracts';
import { Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { fieldTypeLabels } from '../fields/field-modal.tsx';
import { choiceFieldName } from './mapping.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';

const newFieldTypes = personFieldTypes.filter((t) => t !== 'enum');

/** The popup that names a new person field for one column. */
export function NewFieldModal({
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
  const isNarrow = useIsNarrow('phone');
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
