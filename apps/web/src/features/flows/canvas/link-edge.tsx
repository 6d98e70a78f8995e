import { ActionIcon, Badge, Group } from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import { BaseEdge, EdgeLabelRenderer, getSmoothStepPath, type Edge, type EdgeProps } from '@xyflow/react';
import { useCanvas } from './canvas-context.ts';

export type LinkEdgeData = { condition: string | null };
export type LinkEdgeType = Edge<LinkEdgeData, 'link'>;

/** A link: a line from a step (or one of its branches) to the next, with its branch named and, when selected, a delete button. */
export function LinkEdge({
  id,
  sourceX,
  sourceY,
  targetX,
  targetY,
  sourcePosition,
  targetPosition,
  markerEnd,
  data,
  selected,
}: EdgeProps<LinkEdgeType>) {
  const canvas = useCanvas();
  const [path, labelX, labelY] = getSmoothStepPath({
    sourceX,
    sourceY,
    targetX,
    targetY,
    sourcePosition,
    targetPosition,
    borderRadius: 12,
  });
  const condition = data?.condition ?? null;
  const showDelete = selected && !canvas.isReadOnly;
  return (
    <>
      <BaseEdge
        id={id}
        path={path}
        markerEnd={markerEnd}
        style={{
          stroke: selected ? 'var(--mantine-color-indigo-6)' : 'var(--mantine-color-gray-6)',
          strokeWidth: selected ? 2.5 : 1.5,
        }}
      />
      {(condition || showDelete) && (
        <EdgeLabelRenderer>
          <Group
            gap={4}
            wrap="nowrap"
            className="nodrag nopan"
            style={{
              position: 'absolute',
              transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)`,
              pointerEvents: 'all',
            }}
          >
            {condition && (
              <Badge
                size="sm"
                variant="filled"
                color={condition === 'no' ? 'red.8' : condition === 'yes' ? 'teal.9' : 'indigo'}
                tt="none"
              >
                {condition}
              </Badge>
            )}
            {showDelete && (
              <ActionIcon
                size="sm"
                radius="xl"
                color="red"
                variant="filled"
                aria-label="Delete link"
                onClick={() => canvas.deleteLink(id)}
              >
                <IconX size={12} />
              </ActionIcon>
            )}
          </Group>
        </EdgeLabelRenderer>
      )}
    </>
  );
}
