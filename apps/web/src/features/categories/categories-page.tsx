import { sendingMessages, type CommunicationCategory } from '@herald/contracts';
import { Badge, Button, Group, SegmentedControl, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { IconArchive, IconCategory, IconPlus } from '@tabler/icons-react';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { useListState } from '../../lib/use-list-state.ts';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccess } from '../account/use-access.ts';
import { useCategories, useCategoryCounts } from './categories.api.ts';
import { categoryParam, CategoryModal, categoryTypeLabels, newCategoryParam } from './category-modal.tsx';

type Filter = 'active' | 'archived';
type Counts = { emails: number; optedIn: number; optedOut: number };

function CategoryRow({
  category,
  counts,
  isNarrow,
  canWrite,
  onOpen,
}: {
  category: CommunicationCategory;
  counts: Counts | undefined;
  isNarrow: boolean;
  canWrite: boolean;
  onOpen: () => void;
}) {
  const count = (value: number | undefined) => (value === undefined ? '—' : value.toLocaleString());
  const typeBadge = (
    <Badge
      variant="light"
      color={category.type === 'marketing' ? 'indigo' : 'gray'}
      size="sm"
      style={{ flexShrink: 0 }}
    >
      {categoryTypeLabels[category.type]}
    </Badge>
  );
  return (
    <Table.Tr>
      <Table.Td>
        <Stack gap={2}>
          <Group gap={6} wrap="wrap">
            <Text size="sm" fw={600} style={{ wordBreak: 'break-word' }}>
              {category.name}
            </Text>
            {isNarrow && typeBadge}
            {category.isDefault && (
              <Badge variant="light" color="teal" size="sm">
                Default
              </Badge>
            )}
          </Group>
          {isNarrow && category.description && (
            <Text size="xs" c="dimmed" lineClamp={2}>
              {category.description}
            </Text>
          )}
          {isNarrow && counts && (
            <Text size="xs" c="dimmed">
              {count(counts.emails)} emails · {count(counts.optedIn)} opted in · {count(counts.optedOut)}{' '}
              opted out
            </Text>
          )}
        </Stack>
      </Table.Td>
      {!isNarrow && (
        <Table.Td>
          <Text size="sm" c={category.description ? undefined : 'dimmed'} lineClamp={2}>
            {category.description || '—'}
          </Text>
        </Table.Td>
      )}
      {!isNarrow && <Table.Td>{typeBadge}</Table.Td>}
      {!isNarrow && <Table.Td ta="right">{count(counts?.emails)}</Table.Td>}
      {!isNarrow && <Table.Td ta="right">{count(counts?.optedIn)}</Table.Td>}
      {!isNarrow && <Table.Td ta="right">{count(counts?.optedOut)}</Table.Td>}
      <Table.Td ta="right">
        <Button
          size="xs"
          variant="default"
          onClick={onOpen}
          aria-label={`${canWrite ? 'Edit' : 'View'} ${category.name}`}
        >
          {canWrite ? 'Edit' : 'View'}
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}

/** /settings/communication-categories: the kinds of email people can opt in or out of, with their counts. */
export function CategoriesPage() {
  const { isReady, canWrite } = useAccess([], ['emailSettings:write']);
  const categories = useCategories();
  const counts = useCategoryCounts();
  const filters = useListState({ archived: false }, { params: { archived: 'categories-archived' } });
  const filter: Filter = filters.values.archived ? 'archived' : 'active';
  const { value: param, open: openModal, close: closeModal } = usePopupParam(categoryParam);
  const isNarrow = useIsNarrow('tablet');

  const newButton = canWrite && (
    <Button leftSection={<IconPlus size={16} />} onClick={() => openModal(newCategoryParam)}>
      New Category
    </Button>
  );
  const all = categories.data?.categories ?? [];
  const archivedCount = all.filter((c) => c.isArchived).length;
  const list = all
    .filter((c) => c.isArchived === (filter === 'archived'))
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.name.localeCompare(b.name));
  const countOf = new Map((counts.data?.counts ?? []).map((c) => [c.id, c]));

  return (
    <ListPage
      title="Communication Categories"
      description="Kinds of email people can opt in or out of. Every email is filed under one; emails without their own use the default."
      actions={newButton}
      isReady={isReady}
      readOnly={
        !canWrite &&
        'You can see the categories. Creating and changing them needs the “Email settings” permission.'
      }
      toolbar={
        <SegmentedControl
          aria-label="Show"
          w="fit-content"
          value={filter}
          onChange={(value) => filters.set({ archived: value === 'archived' })}
          data={[
            { value: 'active', label: 'Active' },
            { value: 'archived', label: archivedCount > 0 ? `Archived (${archivedCount})` : 'Archived' },
          ]}
        />
      }
      query={categories}
      loadingLabel="Loading categories"
      errorFallback={sendingMessages.categoriesLoadError}
      isEmpty={list.length === 0}
      empty={
        filter === 'archived' ? (
          <EmptyState
            icon={<IconArchive size={28} />}
            title="No archived categories"
            description="Archived categories stay on the emails filed under them but are no longer offered for new emails."
          />
        ) : (
          <EmptyState
            icon={<IconCategory size={28} />}
            title="No categories"
            description="Categories sort your emails into kinds people can opt in or out of: a newsletter, product news, event invitations."
            action={newButton || undefined}
          />
        )
      }
      after={
        <CategoryModal
          param={param}
          categories={categories.data?.categories}
          canWrite={canWrite}
          onClose={closeModal}
        />
      }
    >
      <TableCard
        minWidth={isNarrow ? undefined : 760}
        aria-label={filter === 'archived' ? 'Archived categories' : 'Categories'}
      >
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            {!isNarrow && <Table.Th>Description</Table.Th>}
            {!isNarrow && <Table.Th>Type</Table.Th>}
            {!isNarrow && <Table.Th ta="right">Emails</Table.Th>}
            {!isNarrow && <Table.Th ta="right">Opted in</Table.Th>}
            {!isNarrow && <Table.Th ta="right">Opted out</Table.Th>}
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((category) => (
            <CategoryRow
              key={category.id}
              category={category}
              counts={countOf.get(category.id)}
              isNarrow={isNarrow}
              canWrite={canWrite}
              onOpen={() => openModal(String(category.id))}
            />
          ))}
        </Table.Tbody>
      </TableCard>
    </ListPage>
  );
}
