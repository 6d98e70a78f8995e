import { segmentMessages, segmentSortKeys, type Segment } from '@herald/contracts';
import {
  ActionIcon,
  Badge,
  Button,
  ColorSwatch,
  Group,
  Loader,
  Menu,
  Select,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import {
  IconDots,
  IconFilter,
  IconHelpCircle,
  IconPencil,
  IconSortAscending,
  IconSortDescending,
  IconTrash,
  IconUsersGroup,
} from '@tabler/icons-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { useSegmentFlowsCheck } from '../flows/segment-flows-check.tsx';
import { SegmentSettingsModal } from './new-segment-modal.tsx';
import { useDeleteSegment } from './segments.api.ts';

const sortLabels: Record<(typeof segmentSortKeys)[number], string> = {
  createdAt: 'Date added',
  updatedAt: 'Last updated',
  email: 'Email',
  firstName: 'First name',
  lastName: 'Last name',
};

interface SegmentToolbarProps {
  segment: Segment;
  count: number | undefined;
  isCounting: boolean;
  sort: string;
  order: 'asc' | 'desc';
  canWrite: boolean;
  onSort: (sort: string, order: 'asc' | 'desc') => void;
  onConditions: () => void;
  onExplain: () => void;
  onWholeSegment: () => void;
}

/** The current segment's title, live count, sort, and actions (conditions, why, everyone in it, delete). */
export function SegmentToolbar({
  segment,
  count,
  isCounting,
  sort,
  order,
  canWrite,
  onSort,
  onConditions,
  onExplain,
  onWholeSegment,
}: SegmentToolbarProps) {
  const remove = useDeleteSegment();
  const navigate = useNavigate();
  const isEditable = canWrite && !segment.autoSegment;
  const [isRenaming, setIsRenaming] = useState(false);
  const checkFlows = useSegmentFlowsCheck();
  const deleteSegment = () =>
    remove.mutate(segment.id, {
      onSuccess: (res) => {
        notifySuccess(res?.message || segmentMessages.deleted);
        void navigate('/people');
      },
      onError: (error) => notifyError(error, segmentMessages.deleteError),
    });
  // When active flows start on the segment, their list is the question; otherwise the usual one.
  const confirmDelete = async () => {
    const answer = await checkFlows(segment, 'delete');
    if (answer === 'confirmed') return deleteSegment();
    if (answer === 'cancelled') return;
    modals.openConfirmModal({
      title: `Delete segment “${segment.name}”?`,
      children: (
        <Text size="sm">
          The segment and its conditions are deleted. The people in it stay in your account.
        </Text>
      ),
      labels: { confirm: 'Delete segment', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: deleteSegment,
    });
  };
  return (
    <Group justify="space-between" gap="sm" wrap="wrap">
      <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
        <ColorSwatch color={segment.color ?? '#adb5bd'} size={14} withShadow={false} aria-hidden />
        <Title order={2} fz={20} style={{ wordBreak: 'break-word' }}>
          {segment.name}
        </Title>
        {isEditable && (
          <Tooltip label="Rename">
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label="Rename segment"
              onClick={() => setIsRenaming(true)}
            >
              <IconPencil size={16} />
            </ActionIcon>
          </Tooltip>
        )}
        <Badge
          variant="light"
          color="gray"
          size="lg"
          aria-label="People in this segment"
          leftSection={isCounting ? <Loader size={10} /> : undefined}
        >
          {count === undefined ? '…' : `${count.toLocaleString()} ${count === 1 ? 'person' : 'people'}`}
        </Badge>
      </Group>
      <Group gap="xs" wrap="wrap">
        <Select
          aria-label="Sort by"
          size="sm"
          w={150}
          allowDeselect={false}
          data={segmentSortKeys.map((k) => ({ value: k, label: sortLabels[k] }))}
          value={sort}
          onChange={(v) => v && onSort(v, order)}
        />
        <Tooltip label={order === 'desc' ? 'Newest / Z–A first' : 'Oldest / A–Z first'}>
          <ActionIcon
            variant="default"
            size="lg"
            aria-label={order === 'desc' ? 'Sort ascending' : 'Sort descending'}
            onClick={() => onSort(sort, order === 'desc' ? 'asc' : 'desc')}
          >
            {order === 'desc' ? <IconSortDescending size={18} /> : <IconSortAscending size={18} />}
          </ActionIcon>
        </Tooltip>
        {segment.autoType !== 'archived' && (
          <Button
            variant={isEditable ? 'filled' : 'default'}
            leftSection={<IconFilter size={16} />}
            onClick={onConditions}
          >
            {isEditable ? 'Edit conditions' : 'Conditions'}
          </Button>
        )}
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <ActionIcon variant="default" size="lg" aria-label="Segment actions">
              <IconDots size={18} />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item leftSection={<IconHelpCircle size={14} />} onClick={onExplain}>
              Why is someone in or out?
            </Menu.Item>
            <Menu.Item leftSection={<IconUsersGroup size={14} />} onClick={onWholeSegment}>
              Tag, export or archive everyone
            </Menu.Item>
            {isEditable && (
              <>
                <Menu.Item leftSection={<IconPencil size={14} />} onClick={() => setIsRenaming(true)}>
                  Rename segment
                </Menu.Item>
                <Menu.Divider />
                <Menu.Item
                  color="red"
                  leftSection={<IconTrash size={14} />}
                  onClick={() => void confirmDelete()}
                >
                  Delete segment
                </Menu.Item>
              </>
            )}
          </Menu.Dropdown>
        </Menu>
      </Group>
      {isEditable && (
        <SegmentSettingsModal segment={segment} opened={isRenaming} onClose={() => setIsRenaming(false)} />
      )}
    </Group>
  );
}
