import { broadcastMessages, type Broadcast } from '@herald/contracts';
import { ActionIcon, Anchor, Group, Menu, Table, Text, VisuallyHidden } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconArchive, IconCopy, IconDots, IconPencil } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { formatDateTime, formatRelative } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { TableCard } from '../../ui/table-card.tsx';
import { BroadcastStatusBadge } from './broadcast-status-badge.tsx';
import { useArchiveBroadcast, useDuplicateBroadcast } from './broadcasts.api.ts';

interface BroadcastsTableProps {
  broadcasts: Broadcast[];
  /** Email names by id, for the email column. */
  emailNames: Map<number, string>;
  canWrite: boolean;
  isNarrow: boolean;
  /** The list's query string, kept when a broadcast opens (docs/broadcasts-and-sending.md). */
  search: string;
}

/** When it went, goes or was last touched, by status. */
function when(broadcast: Broadcast): string {
  switch (broadcast.status) {
    case 'sent':
    case 'failed':
      return broadcast.finishedAt ? `Finished ${formatDateTime(broadcast.finishedAt)}` : 'Finished';
    case 'scheduled':
      return broadcast.sendAt ? `Sends ${formatDateTime(broadcast.sendAt)}` : 'Scheduled';
    case 'sending':
    case 'ab-testing':
    case 'ab-test-sending-winner':
      return broadcast.startedAt ? `Started ${formatRelative(broadcast.startedAt)}` : 'Starting';
    default:
      return `Edited ${formatRelative(broadcast.updatedAt)}`;
  }
}

/** Recipients once it started (queued), a dash before (drafts, scheduled ones, and ones canceled before they went). */
function recipients(broadcast: Broadcast): string {
  if (broadcast.stats.queued === 0 && !broadcast.startedAt) return '—';
  return broadcast.stats.queued.toLocaleString();
}

export function BroadcastsTable({
  broadcasts,
  emailNames,
  canWrite,
  isNarrow,
  search,
}: BroadcastsTableProps) {
  const navigate = useNavigate();
  const duplicate = useDuplicateBroadcast();
  const archive = useArchiveBroadcast();
  const open = (id: number) => `/broadcasts/${id}${search}`;

  const copy = (broadcast: Broadcast) =>
    duplicate.mutate(broadcast.id, {
      onSuccess: (data) => {
        notifySuccess(data.message || broadcastMessages.duplicated);
        void navigate(open(data.item.id));
      },
      onError: (error) => notifyError(error, broadcastMessages.createError),
    });
  const confirmArchive = (broadcast: Broadcast) =>
    modals.openConfirmModal({
      title: `Archive “${broadcast.name}”?`,
      children: <Text size="sm">It leaves the list; you can still find it under Archived.</Text>,
      labels: { confirm: 'Archive', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        archive.mutate(broadcast.id, {
          onSuccess: () => notifySuccess(broadcastMessages.archived),
          onError: (error) => notifyError(error, broadcastMessages.archiveError),
        }),
    });

  return (
    <TableCard minWidth={isNarrow ? 320 : 760} aria-label="Broadcasts">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Broadcast</Table.Th>
          {!isNarrow && <Table.Th w={150}>Status</Table.Th>}
          {!isNarrow && <Table.Th>Email</Table.Th>}
          <Table.Th ta="right">Recipients</Table.Th>
          {!isNarrow && <Table.Th>When</Table.Th>}
          <Table.Th>
            <VisuallyHidden>Actions</VisuallyHidden>
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {broadcasts.map((broadcast) => (
          <Table.Tr key={broadcast.id}>
            <Table.Td maw={360}>
              <Anchor
                component={Link}
                to={open(broadcast.id)}
                fw={600}
                size="sm"
                style={{ wordBreak: 'break-word' }}
              >
                {broadcast.name}
              </Anchor>
              {isNarrow && (
                <Group gap="xs" mt={4} wrap="wrap">
                  <BroadcastStatusBadge status={broadcast.status} paused={broadcast.pausedAt !== null} />
                  <Text size="xs" c="dimmed">
                    {when(broadcast)}
                  </Text>
                </Group>
              )}
            </Table.Td>
            {!isNarrow && (
              <Table.Td>
                <BroadcastStatusBadge status={broadcast.status} paused={broadcast.pausedAt !== null} />
              </Table.Td>
            )}
            {!isNarrow && (
              <Table.Td maw={240}>
                <Text size="sm" lineClamp={1} c={broadcast.emailId ? undefined : 'dimmed'}>
                  {broadcast.emailId
                    ? (emailNames.get(broadcast.emailId) ?? `Email ${broadcast.emailId}`)
                    : 'No email yet'}
                </Text>
              </Table.Td>
            )}
            <Table.Td ta="right">
              <Text size="sm">{recipients(broadcast)}</Text>
              {broadcast.stats.sent > 0 && (
                <Text size="xs" c="dimmed">
                  {broadcast.stats.sent.toLocaleString()} sent
                </Text>
              )}
            </Table.Td>
            {!isNarrow && (
              <Table.Td>
                <Text size="sm" c="dimmed">
                  {when(broadcast)}
                </Text>
              </Table.Td>
            )}
            <Table.Td>
              <Menu position="bottom-end" withinPortal>
                <Menu.Target>
                  <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${broadcast.name}`}>
                    <IconDots size={18} />
                  </ActionIcon>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Item component={Link} to={open(broadcast.id)} leftSection={<IconPencil size={16} />}>
                    {canWrite && (broadcast.status === 'draft' || broadcast.status === 'scheduled')
                      ? 'Edit'
                      : 'Open'}
                  </Menu.Item>
                  {canWrite && (
                    <Menu.Item leftSection={<IconCopy size={16} />} onClick={() => copy(broadcast)}>
                      Duplicate
                    </Menu.Item>
                  )}
                  {canWrite && !broadcast.archived && (
                    <Menu.Item
                      color="red"
                      leftSection={<IconArchive size={16} />}
                      onClick={() => confirmArchive(broadcast)}
                    >
                      Archive
                    </Menu.Item>
                  )}
                </Menu.Dropdown>
              </Menu>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </TableCard>
  );
}
