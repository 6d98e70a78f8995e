import type { PersonField } from '@herald/contracts';
import { Alert, Badge, Button, Group, Stack, Table, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { ListPage, seeGate } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccess } from '../account/use-access.ts';
import { FolderTree } from '../folders/folder-tree.tsx';
import { isEditableField, usePersonFields } from '../people/people.api.ts';
import { fieldEditParam, FieldModal, fieldTypeLabels, newFieldParam } from './field-modal.tsx';

function FieldRow({
  field,
  canWrite,
  isNarrow,
  onEdit,
}: {
  field: PersonField;
  canWrite: boolean;
  isNarrow: boolean;
  onEdit: () => void;
}) {
  const editable = isEditableField(field);
  return (
    <Table.Tr>
      <Table.Td>
        <Stack gap={0}>
          <Text size="sm" fw={500}>
            {field.title || field.name}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {field.name}
          </Text>
        </Stack>
      </Table.Td>
      <Table.Td>
        <Text size="sm">
          {fieldTypeLabels[field.type]}
          {field.array ? ' (list)' : ''}
        </Text>
      </Table.Td>
      {!isNarrow && (
        <Table.Td>
          {editable ? (
            <Badge variant="light" color="teal">
              Custom
            </Badge>
          ) : (
            <Tooltip label="Built-in fields cannot be changed or deleted." withArrow>
              <Badge variant="light" color="gray">
                Built-in
              </Badge>
            </Tooltip>
          )}
        </Table.Td>
      )}
      <Table.Td>
        {isNarrow && !editable && (
          <Text size="xs" c="dimmed" ta="right">
            Built-in
          </Text>
        )}
        {editable && canWrite && (
          <Group justify="flex-end">
            <Button
              size="xs"
              variant="default"
              onClick={onEdit}
              aria-label={`Edit ${field.title || field.name}`}
            >
              Edit
            </Button>
          </Group>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/** /settings/person-fields: the fields stored on each person, and the custom-field popup. */
export function PersonFieldsPage() {
  const { isReady, canRead, canWrite } = useAccess(['people:read'], ['personFields:write']);
  const fields = usePersonFields({ enabled: canRead });
  const { value: param, open: openModal, close: closeModal } = usePopupParam(fieldEditParam);
  const isNarrow = useIsNarrow();

  const all = fields.data?.items ?? [];
  const custom = all.filter(isEditableField);
  const builtIn = all.filter((f) => !isEditableField(f));
  const rows = [...custom.sort((a, b) => (a.title || a.name).localeCompare(b.title || b.name)), ...builtIn];

  return (
    <ListPage
      title="Custom Fields"
      description="The fields stored on each person. Add your own to segment and personalise on anything."
      actions={
        canWrite && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => openModal(newFieldParam)}>
            New field
          </Button>
        )
      }
      isReady={isReady}
      gate={seeGate(canRead, 'person fields', 'See people')}
      readOnly={
        !canWrite &&
        'You can see person fields. Creating and changing them needs the “Manage custom fields” permission.'
      }
      sidebar={(isNarrow) => (
        <FolderTree
          folderType="personFields"
          title="Field folders"
          items={custom.map((f) => ({ id: f.name, label: f.title || f.name }))}
          canWrite={canWrite}
          w={isNarrow ? '100%' : 240}
          onItemClick={canWrite ? (item) => openModal(String(item.id)) : undefined}
          deleteWarning="The person fields inside this folder are deleted too, with every person's values for them."
        />
      )}
      query={fields}
      loadingLabel="Loading fields"
      errorFallback="We couldn't load your fields."
      after={<FieldModal param={canWrite ? param : null} fields={custom} onClose={closeModal} />}
    >
      <Stack gap="sm">
        {custom.length === 0 && (
          <Alert variant="light" color="blue">
            No custom fields yet. Built-in fields are below; add your own with “New field”.
          </Alert>
        )}
        <TableCard>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Field</Table.Th>
              <Table.Th>Type</Table.Th>
              {!isNarrow && <Table.Th>Kind</Table.Th>}
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((field) => (
              <FieldRow
                key={field.name}
                field={field}
                canWrite={canWrite}
                isNarrow={isNarrow}
                onEdit={() => openModal(field.name)}
              />
            ))}
          </Table.Tbody>
        </TableCard>
      </Stack>
    </ListPage>
  );
}
