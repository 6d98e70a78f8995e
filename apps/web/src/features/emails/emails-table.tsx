import { emailMessages, type EmailSummary } from '@herald/contracts';
import { ActionIcon, Anchor, Badge, Menu, Table, Text, VisuallyHidden } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconArchive, IconArchiveOff, IconCopy, IconDots, IconPencil } from '@tabler/icons-react';
import { Link } from 'react-router';
import { errorMessage } from '../../lib/api.ts';
import { formatRelative } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { TableCard } from '../../ui/table-card.tsx';
import { editorLabel } from './editor-types.ts';
import { useUpdateEmail } from './emails.api.ts';

/** A rate of sent emails, or a dash before anything was sent (figures arrive with broadcasts and tracking). */
function rate(value: number, sent: number): string {
  return sent > 0 ? `${Math.round((value / sent) * 100)}%` : '—';
}

interface EmailsTableProps {
  emails: EmailSummary[];
  canWrite: boolean;
  isNarrow: boolean;
  /** The list's query, carried to each email so that its way back opens the list as it was. */
  search: string;
  onDuplicate: (email: EmailSummary) => void;
}

export function EmailsTable({ emails, canWrite, isNarrow, search, onDuplicate }: EmailsTableProps) {
  const update = useUpdateEmail();
  const setArchived = (email: EmailSummary, archived: boolean) =>
    update.mutate(
      { id: email.id, changes: { archived } },
      {
        onSuccess: () =>
          notifySuccess(archived ? `✅ “${email.name}” archived.` : `✅ “${email.name}” restored.`),
        onError: (error) =>
          notifyError(error, emailMessages.archiveError(errorMessage(error, emailMessages.updateFallback))),
      },
    );
  const confirmArchive = (email: EmailSummary) =>
    modals.openConfirmModal({
      title: `Archive “${email.name}”?`,
      children: (
        <Text size="sm">
          It leaves the list and can't be chosen in flows or broadcasts. You can restore it from Archived.
        </Text>
      ),
      labels: { confirm: 'Archive', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => setArchived(email, true),
    });

  return (
    <TableCard minWidth={isNarrow ? 320 : 760}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Email</Table.Th>
          {!isNarrow && <Table.Th w={130}>Editor</Table.Th>}
          <Table.Th ta="right">Sent</Table.Th>
          {!isNarrow && <Table.Th ta="right">Opened</Table.Th>}
          {!isNarrow && <Table.Th ta="right">Clicked</Table.Th>}
          {!isNarrow && <Table.Th ta="right">Unsubscribed</Table.Th>}
          {!isNarrow && <Table.Th>Updated</Table.Th>}
          <Table.Th>
            <VisuallyHidden>Actions</VisuallyHidden>
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {emails.map((email) => (
          <Table.Tr key={email.id}>
            <Table.Td maw={360}>
              <Anchor
                component={Link}
                to={`/emails/${email.id}${search}`}
                fw={600}
                size="sm"
                style={{ wordBreak: 'break-word' }}
              >
                {email.name}
              </Anchor>
              <Text size="xs" c="dimmed" lineClamp={1}>
                {email.subject || 'No subject'}
              </Text>
            </Table.Td>
            {!isNarrow && (
              <Table.Td>
                <Badge
                  variant="light"
                  color="gray"
                  radius="sm"
                  tt="none"
                  style={{ overflow: 'visible' }}
                  styles={{ label: { overflow: 'visible' } }}
                >
                  {editorLabel(email.editorType)}
                </Badge>
              </Table.Td>
            )}
            <Table.Td ta="right">
              <Text size="sm">{email.stats.sent.toLocaleString()}</Text>
            </Table.Td>
            {!isNarrow && (
              <Table.Td ta="right">
                <Text size="sm">{rate(email.stats.opened, email.stats.sent)}</Text>
              </Table.Td>
            )}
            {!isNarrow && (
              <Table.Td ta="right">
                <Text size="sm">{rate(email.stats.clicked, email.stats.sent)}</Text>
              </Table.Td>
            )}
            {!isNarrow && (
              <Table.Td ta="right">
                <Text size="sm">{rate(email.stats.unsubscribed, email.stats.sent)}</Text>
              </Table.Td>
            )}
            {!isNarrow && (
              <Table.Td>
                <Text size="sm" c="dimmed">
                  {formatRelative(email.updatedAt)}
                </Text>
              </Table.Td>
            )}
            <Table.Td>
              <Menu position="bottom-end" withinPortal>
                <Menu.Target>
                  <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${email.name}`}>
                    <IconDots size={18} />
                  </ActionIcon>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Item
                    component={Link}
                    to={`/emails/${email.id}${search}`}
                    leftSection={<IconPencil size={16} />}
                  >
                    {canWrite && !email.archived ? 'Edit' : 'Open'}
                  </Menu.Item>
                  {canWrite && (
                    <Menu.Item leftSection={<IconCopy size={16} />} onClick={() => onDuplicate(email)}>
                      Copy…
                    </Menu.Item>
                  )}
                  {canWrite &&
                    (email.archived ? (
                      <Menu.Item
                        leftSection={<IconArchiveOff size={16} />}
                        onClick={() => setArchived(email, false)}
                      >
                        Restore
                      </Menu.Item>
                    ) : (
                      <Menu.Item
                        color="red"
                        leftSection={<IconArchive size={16} />}
                        onClick={() => confirmArchive(email)}
                      >
                        Archive
                      </Menu.Item>
                    ))}
                </Menu.Dropdown>
              </Menu>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </TableCard>
  );
}
