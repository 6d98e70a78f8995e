import { flowMessages, type Flow } from '@herald/contracts';
import {
  ActionIcon,
  Anchor,
  Badge,
  Group,
  Menu,
  Switch,
  Table,
  Text,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import {
  IconAlertTriangle,
  IconArchive,
  IconArchiveOff,
  IconCopy,
  IconDots,
  IconPencil,
} from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatRelative } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { TableCard } from '../../ui/table-card.tsx';
import { CopyFlowDialog } from './copy-flow-dialog.tsx';
import { statusText } from './flow-header.tsx';
import { isFlowOn, useFlowPeopleCounts, useToggleFlow, useUpdateFlow } from './flows.api.ts';

interface FlowsTableProps {
  flows: Flow[];
  canWrite: boolean;
  isNarrow: boolean;
  /** The archived flows: switched off for good, restored from the '…' menu. */
  isArchived?: boolean;
}

/** People in the flow now and all who ever entered; asked per flow, refreshed while the list is open. */
function PeopleCounts({ flowId }: { flowId: number }) {
  const counts = useFlowPeopleCounts(flowId);
  if (!counts.data)
    return (
      <Text size="sm" c="dimmed">
        {counts.isError ? '—' : '…'}
      </Text>
    );
  return (
    <Text size="sm" data-testid="flow-row-people">
      <Text span fw={600} size="sm">
        {counts.data.active.toLocaleString()}
      </Text>{' '}
      <Text span c="dimmed" size="sm">
        / {counts.data.entered.toLocaleString()}
      </Text>
    </Text>
  );
}

/** The flows list: name, on/off switch, people (active / entered), steps, last change and a '…' menu to archive or restore. */
export function FlowsTable({ flows, canWrite, isNarrow, isArchived = false }: FlowsTableProps) {
  const toggleFlow = useToggleFlow();
  const update = useUpdateFlow();
  const [copying, setCopying] = useState<Flow | null>(null);
  const confirmArchive = (flow: Flow) =>
    modals.openConfirmModal({
      title: `Archive “${flow.name}”?`,
      children: (
        <Text size="sm">
          {isFlowOn(flow.status)
            ? 'The flow is switched off and leaves the list; people waiting in it stop where they are.'
            : 'It leaves the list.'}
        </Text>
      ),
      labels: { confirm: 'Archive', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        update.mutate(
          { id: flow.id, changes: { archived: true } },
          {
            onSuccess: () => notifySuccess(`“${flow.name}” archived.`),
            onError: (error) => notifyError(error, flowMessages.updateFallback),
          },
        ),
    });
  const restore = (flow: Flow) =>
    update.mutate(
      { id: flow.id, changes: { archived: false } },
      {
        onSuccess: () => notifySuccess(`“${flow.name}” restored.`),
        onError: (error) => notifyError(error, flowMessages.updateFallback),
      },
    );

  return (
    <>
      <TableCard minWidth={isNarrow ? 320 : 720} aria-label={isArchived ? 'Archived flows' : 'Flows'}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Flow</Table.Th>
            <Table.Th w={130}>Active</Table.Th>
            <Table.Th ta="right">
              <Tooltip label="In the flow now / entered since it was made" withArrow>
                <span>People</span>
              </Tooltip>
            </Table.Th>
            {!isNarrow && <Table.Th ta="right">Steps</Table.Th>}
            {!isNarrow && <Table.Th>Updated</Table.Th>}
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {flows.map((flow) => {
            const stepCount = Object.keys(flow.steps).length;
            return (
              <Table.Tr key={flow.id} data-flow-id={flow.id}>
                <Table.Td maw={380}>
                  <Group gap="xs" wrap="nowrap">
                    <Anchor
                      component={Link}
                      to={`/flows/${flow.id}`}
                      fw={600}
                      size="sm"
                      style={{ wordBreak: 'break-word' }}
                    >
                      {flow.name}
                    </Anchor>
                    {flow.warnings.length > 0 && (
                      <Tooltip label={flow.warnings.join(' ')} multiline w={260} withArrow>
                        <Badge
                          color="yellow"
                          variant="light"
                          c="dark.8"
                          size="sm"
                          leftSection={<IconAlertTriangle size={12} color="var(--mantine-color-orange-8)" />}
                          tabIndex={0}
                        >
                          {flow.warnings.length === 1 ? '1 warning' : `${flow.warnings.length} warnings`}
                        </Badge>
                      </Tooltip>
                    )}
                  </Group>
                  {flow.status !== 'active' && flow.status !== 'deactivated-user' && (
                    <Text size="xs" c="orange.8">
                      {statusText[flow.status]}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Switch
                    color="teal"
                    aria-label={`${flow.name} active`}
                    checked={isFlowOn(flow.status)}
                    disabled={!canWrite || isArchived || toggleFlow.changingId === flow.id}
                    onChange={(event) => void toggleFlow.toggle(flow.id, event.currentTarget.checked)}
                  />
                </Table.Td>
                <Table.Td ta="right">
                  <PeopleCounts flowId={flow.id} />
                </Table.Td>
                {!isNarrow && (
                  <Table.Td ta="right">
                    <Text size="sm">{stepCount}</Text>
                  </Table.Td>
                )}
                {!isNarrow && (
                  <Table.Td>
                    <Text size="sm" c="dimmed">
                      {formatRelative(flow.updatedAt)}
                    </Text>
                  </Table.Td>
                )}
                <Table.Td>
                  <Menu position="bottom-end" withinPortal>
                    <Menu.Target>
                      <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${flow.name}`}>
                        <IconDots size={18} />
                      </ActionIcon>
                    </Menu.Target>
                    <Menu.Dropdown>
                      <Menu.Item
                        component={Link}
                        to={`/flows/${flow.id}`}
                        leftSection={<IconPencil size={16} />}
                      >
                        {canWrite ? 'Edit' : 'Open'}
                      </Menu.Item>
                      {canWrite && (
                        <Menu.Item leftSection={<IconCopy size={16} />} onClick={() => setCopying(flow)}>
                          Copy
                        </Menu.Item>
                      )}
                      {canWrite && !isArchived && (
                        <Menu.Item
                          color="red"
                          leftSection={<IconArchive size={16} />}
                          onClick={() => confirmArchive(flow)}
                        >
                          Archive
                        </Menu.Item>
                      )}
                      {canWrite && isArchived && (
                        <Menu.Item leftSection={<IconArchiveOff size={16} />} onClick={() => restore(flow)}>
                          Restore
                        </Menu.Item>
                      )}
                    </Menu.Dropdown>
                  </Menu>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </TableCard>
      <CopyFlowDialog flow={copying} onClose={() => setCopying(null)} />
    </>
  );
}
