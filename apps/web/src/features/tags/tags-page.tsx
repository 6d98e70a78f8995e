import { peopleMessages } from '@herald/contracts';
import { Badge, Button, Group, Table, Text, VisuallyHidden } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconPlus, IconTag } from '@tabler/icons-react';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { formatDate } from '../../lib/format.ts';
import { notifyError } from '../../lib/notify.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage, seeGate } from '../../ui/list-page.tsx';
import { TableCard } from '../../ui/table-card.tsx';
import { useAccess } from '../account/use-access.ts';
import { FolderTree } from '../folders/folder-tree.tsx';
import { newTagParam, TagModal, tagEditParam } from './tag-modal.tsx';
import { useDeleteTag, useTagCounts, useTags } from './tags.api.ts';

/** /settings/tags: the account's tags with how many people carry each, and the tag popup. */
export function TagsPage() {
  const { isReady, canRead, canWrite } = useAccess(['people:read'], ['people:write']);
  const tags = useTags({ enabled: canRead });
  const counts = useTagCounts({ enabled: canRead });
  const remove = useDeleteTag();
  const { value: param, open: openModal, close: closeModal } = usePopupParam(tagEditParam);
  const isNarrow = useIsNarrow();

  const confirmDelete = (tag: string) =>
    modals.openConfirmModal({
      title: `Delete tag “${tag}”?`,
      children: (
        <Text size="sm">
          The tag is removed from every person who has it. Flows and segments using it stop matching.
        </Text>
      ),
      labels: { confirm: 'Delete', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(tag, { onError: (error) => notifyError(error, peopleMessages.couldNotDeleteTag) }),
    });

  const countOf = new Map((counts.data?.tagCounts ?? []).map((c) => [c.tag, c.count]));
  const list = [...(tags.data?.tags ?? [])].sort((a, b) => a.tag.localeCompare(b.tag));

  return (
    <ListPage
      title="Tags"
      description="Labels you put on people to target them in flows and segments."
      actions={
        canWrite && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => openModal(newTagParam)}>
            New Tag
          </Button>
        )
      }
      isReady={isReady}
      gate={seeGate(canRead, 'tags', 'See people')}
      readOnly={
        !canWrite &&
        'You can see tags. Creating and changing them needs the “Add and edit people” permission.'
      }
      sidebar={(isNarrow) => (
        <FolderTree
          folderType="tags"
          title="Tag folders"
          items={list.map((t) => ({ id: t.tag, label: t.tag }))}
          canWrite={canWrite}
          w={isNarrow ? '100%' : 240}
          onItemClick={canWrite ? (item) => openModal(String(item.id)) : undefined}
          deleteWarning="The tags inside this folder are deleted too, and removed from every person who has them."
        />
      )}
      query={tags}
      loadingLabel="Loading tags"
      errorFallback="We couldn't load your tags."
      isEmpty={list.length === 0}
      empty={
        <EmptyState
          icon={<IconTag size={28} />}
          title="No tags yet"
          description="Tags label people — “customer”, “webinar-2026”, “vip”. Create one here, or add tags to people directly."
          action={
            canWrite ? (
              <Button variant="light" onClick={() => openModal(newTagParam)}>
                New Tag
              </Button>
            ) : undefined
          }
        />
      }
      after={<TagModal param={canWrite ? param : null} tags={tags.data?.tags} onClose={closeModal} />}
    >
      <TableCard minWidth={480}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Tag</Table.Th>
            {!isNarrow && <Table.Th>Description</Table.Th>}
            <Table.Th ta="right">People</Table.Th>
            {!isNarrow && <Table.Th>Created</Table.Th>}
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((tag) => (
            <Table.Tr key={tag.tag}>
              <Table.Td>
                <Badge variant="light" radius="sm" tt="none" size="lg" fw={500}>
                  {tag.tag}
                </Badge>
              </Table.Td>
              {!isNarrow && (
                <Table.Td>
                  <Text size="sm" c={tag.description ? undefined : 'dimmed'} lineClamp={2}>
                    {tag.description || '—'}
                  </Text>
                </Table.Td>
              )}
              <Table.Td ta="right">
                <Text size="sm">{(countOf.get(tag.tag) ?? tag.count ?? 0).toLocaleString()}</Text>
              </Table.Td>
              {!isNarrow && (
                <Table.Td>
                  <Text size="sm" c="dimmed">
                    {formatDate(tag.createdAt)}
                  </Text>
                </Table.Td>
              )}
              <Table.Td>
                {canWrite && (
                  <Group gap="xs" justify="flex-end" wrap="nowrap">
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => openModal(tag.tag)}
                      aria-label={`Edit ${tag.tag}`}
                    >
                      Edit
                    </Button>
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      onClick={() => confirmDelete(tag.tag)}
                      aria-label={`Delete ${tag.tag}`}
                    >
                      Delete
                    </Button>
                  </Group>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </TableCard>
    </ListPage>
  );
}
