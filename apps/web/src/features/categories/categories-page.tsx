import { hasScopes, sendingMessages, type CommunicationCategory } from '@herald/contracts';
import { Alert, Badge, Button, Group, SegmentedControl, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArchive, IconCategory, IconLock, IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccount } from '../account/account.api.ts';
import { useCategories, useCategoryCounts } from './categories.api.ts';
import { categoryParam, CategoryModal, categoryTypeLabels, newCategoryParam } from './category-modal.tsx';

type Filter = 'active' | 'archived';
type Counts = { emails: number; optedIn: number; optedOut: number };

function CategoryRow({ category, counts, isNarrow, canWrite, onOpen }: { category: CommunicationCategory; counts: Counts | undefined; isNarrow: boolean; canWrite: boolean; onOpen: () => void }) {
  const count = (value: number | undefined) => (value === undefined ? '—' : value.toLocaleString());
  const typeBadge = (
    <Badge variant="light" color={category.type === 'marketing' ? 'indigo' : 'gray'} size="sm" style={{ flexShrink: 0 }}>
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
              {count(counts.emails)} emails · {count(counts.optedIn)} opted in · {count(counts.optedOut)} opted out
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
        <Button size="xs" variant="default" onClick={onOpen} aria-label={`${canWrite ? 'Edit' : 'View'} ${category.name}`}>
          {canWrite ? 'Edit' : 'View'}
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}

/** /settings/communication-categories: the kinds of email people can opt in or out of, with their counts. */
export function CategoriesPage() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canWrite = accountData ? hasScopes(accountData, ['emailSettings:write']) : false;
  const categories = useCategories();
  const counts = useCategoryCounts();
  const [filter, setFilter] = useState<Filter>('active');
  const { value: param, open: openModal, close: closeModal } = usePopupParam(categoryParam);
  const isNarrow = useMediaQuery('(max-width: 767px)') ?? false;

  if (!account.data) return <LoadingSpinner />;

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

  let content;
  if (categories.isPending) content = <LoadingSpinner label="Loading categories" />;
  else if (categories.isError)
    content = <LoadError message={errorMessage(categories.error, sendingMessages.categoriesLoadError)} onRetry={() => void categories.refetch()} />;
  else if (list.length === 0)
    content =
      filter === 'archived' ? (
        <EmptyState icon={<IconArchive size={28} />} title="No archived categories" description="Archived categories stay on the emails filed under them but are no longer offered for new emails." />
      ) : (
        <EmptyState icon={<IconCategory size={28} />} title="No categories" description="Categories sort your emails into kinds people can opt in or out of: a newsletter, product news, event invitations." action={newButton || undefined} />
      );
  else
    content = (
      <TableCard minWidth={isNarrow ? undefined : 760} aria-label={filter === 'archived' ? 'Archived categories' : 'Categories'}>
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
            <CategoryRow key={category.id} category={category} counts={countOf.get(category.id)} isNarrow={isNarrow} canWrite={canWrite} onOpen={() => openModal(String(category.id))} />
          ))}
        </Table.Tbody>
      </TableCard>
    );

  return (
    <Stack gap="lg" py="md">
      <PageHeader
        title="Communication Categories"
        description="Kinds of email people can opt in or out of. Every email is filed under one; emails without their own use the default."
        actions={newButton}
      />
      {!canWrite && (
        <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
          You can see the categories. Creating and changing them needs the “Email settings” permission.
        </Alert>
      )}
      <SegmentedControl
        aria-label="Show"
        w="fit-content"
        value={filter}
        onChange={(value) => setFilter(value as Filter)}
        data={[
          { value: 'active', label: 'Active' },
          { value: 'archived', label: archivedCount > 0 ? `Archived (${archivedCount})` : 'Archived' },
        ]}
      />
      {content}
      <CategoryModal param={param} categories={categories.data?.categories} canWrite={canWrite} onClose={closeModal} />
    </Stack>
  );
}
