import type { Segment } from '@herald/contracts';
import { Badge, ColorSwatch, Group, NavLink, Paper, Skeleton, Stack, Text } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import { FolderTree } from '../folders/folder-tree.tsx';

/** The left column: automatic segments with their counts, then the account's segments in folders. */
export function SegmentsColumn({ segments, currentId, canWrite, isNarrow }: { segments: Segment[] | undefined; currentId: number | null; canWrite: boolean; isNarrow: boolean }) {
  const navigate = useNavigate();
  const automatic = (segments ?? []).filter((s) => s.autoSegment);
  const own = (segments ?? []).filter((s) => !s.autoSegment);
  const link = (s: Segment) => (s.autoType === 'allPeople' ? '/people' : `/segments/${s.id}`);
  return (
    <Stack gap="sm" w={isNarrow ? '100%' : 240} style={{ flexShrink: 0 }}>
      <Paper withBorder radius="md" p="xs" component="nav" aria-label="Segments">
        <Text size="xs" fw={700} tt="uppercase" c="dimmed" px="xs" py={4}>
          Segments
        </Text>
        {!segments && <Skeleton h={120} />}
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
                  <Badge size="xs" variant="light" color="gray">
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
          items={own.map((s) => ({ id: s.id, label: s.name }))}
          canWrite={canWrite}
          onItemClick={(item) => void navigate(`/segments/${item.id}`)}
          deleteWarning="The segments inside are deleted with the folder."
          w="100%"
        />
      )}
    </Stack>
  );
}
