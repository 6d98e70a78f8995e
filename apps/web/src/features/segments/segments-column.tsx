import type { Segment } from '@herald/contracts';
import {
  Badge,
  Button,
  Collapse,
  ColorSwatch,
  Group,
  NavLink,
  Paper,
  Skeleton,
  Stack,
  Text,
} from '@mantine/core';
import { IconChevronDown, IconChevronUp } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { FolderTree } from '../folders/folder-tree.tsx';
import { segmentPath } from './segments.api.ts';

interface SegmentsColumnProps {
  segments: Segment[] | undefined;
  currentId: number | null;
  canWrite: boolean;
  /** On a narrow screen the list folds behind a button naming the current segment. */
  isNarrow: boolean;
}

const peopleLabel = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'person' : 'people'}`;

/** The left column: automatic segments with their counts, then the account's segments in folders. */
export function SegmentsColumn({ segments, currentId, canWrite, isNarrow }: SegmentsColumnProps) {
  const navigate = useNavigate();
  const [isOpen, setIsOpen] = useState(false);
  // Picking a segment folds the list again on a narrow screen.
  useEffect(() => setIsOpen(false), [currentId]);
  const automatic = (segments ?? []).filter((s) => s.autoSegment);
  const own = (segments ?? []).filter((s) => !s.autoSegment);
  const current = segments?.find((s) => s.id === currentId);
  const link = (s: Segment) => (s.autoType === 'allPeople' ? '/people' : `/segments/${s.id}`);

  const list = (
    <Stack gap="sm">
      <Paper withBorder radius="md" p="xs" component="nav" aria-label="Segments">
        <Text size="xs" fw={700} tt="uppercase" c="dimmed" px="xs" py={4}>
          Segments
        </Text>
        {!segments && (
          <Stack gap={6} p="xs" aria-hidden>
            {Array.from({ length: 6 }, (_, i) => (
              <Skeleton key={i} h={14} w={`${60 + ((i * 11) % 35)}%`} radius="xl" />
            ))}
          </Stack>
        )}
        {automatic.map((s) => (
          <NavLink
            key={s.id}
            component={Link}
            to={link(s)}
            active={s.id === currentId}
            aria-current={s.id === currentId ? 'page' : undefined}
            label={
              <Group gap={8} wrap="nowrap" justify="space-between">
                <Group gap={8} wrap="nowrap">
                  <ColorSwatch color={s.color ?? '#adb5bd'} size={10} withShadow={false} aria-hidden />
                  <Text size="sm">{s.name}</Text>
                </Group>
                {s.memberCount !== null && (
                  <Badge size="xs" variant="light" color="gray" aria-label={peopleLabel(s.memberCount)}>
                    {s.memberCount.toLocaleString()}
                  </Badge>
                )}
              </Group>
            }
            style={{ borderRadius: 'var(--mantine-radius-sm)' }}
          />
        ))}
      </Paper>
      {segments && (
        <FolderTree
          folderType="segments"
          title="Your segments"
          items={own.map((s) => ({
            id: s.id,
            label: s.name,
            color: s.color,
            isCurrent: s.id === currentId,
            // Counted by the worker once the segment is built; until then no number rather than a wrong one.
            count:
              s.memberCount === null ? null : { value: s.memberCount, label: peopleLabel(s.memberCount) },
          }))}
          canWrite={canWrite}
          onItemClick={(item) => void navigate(segmentPath(item.id))}
          deleteWarning="The segments inside are deleted with the folder."
          w="100%"
        />
      )}
    </Stack>
  );

  if (!isNarrow) {
    return (
      <Stack gap="sm" w={240} style={{ flexShrink: 0 }}>
        {list}
      </Stack>
    );
  }
  return (
    <Stack gap="xs" w="100%">
      <Button
        variant="default"
        justify="space-between"
        fullWidth
        aria-expanded={isOpen}
        aria-controls="segments-list"
        rightSection={isOpen ? <IconChevronUp size={16} /> : <IconChevronDown size={16} />}
        leftSection={
          <ColorSwatch color={current?.color ?? '#adb5bd'} size={10} withShadow={false} aria-hidden />
        }
        onClick={() => setIsOpen((open) => !open)}
      >
        {isOpen ? 'Hide segments' : `Segments: ${current?.name ?? '…'}`}
      </Button>
      <Collapse in={isOpen} id="segments-list">
        {list}
      </Collapse>
    </Stack>
  );
}
