import {
  broadcastBadgeColors,
  broadcastStatusLabels,
  type BroadcastBadgeColor,
  type BroadcastStatus,
} from '@herald/contracts';
import { Badge, Group } from '@mantine/core';
import { IconPlayerPause } from '@tabler/icons-react';

/** The spec's badge colours (docs/broadcasts-and-sending.md) on this theme: colour and variant. */
const badgeStyle: Record<BroadcastBadgeColor, { color: string; variant: 'light' | 'filled' | 'outline' }> = {
  success: { color: 'green', variant: 'light' },
  primary: { color: 'indigo', variant: 'light' },
  light: { color: 'gray', variant: 'light' },
  warning: { color: 'orange', variant: 'light' },
  secondary: { color: 'gray', variant: 'outline' },
  danger: { color: 'red', variant: 'light' },
};

/** A broadcast's status with the spec's label ('A/B Testing', 'Sending A/B test winner', others capitalised); "Paused" beside it while paused. */
export function BroadcastStatusBadge({
  status,
  paused = false,
}: {
  status: BroadcastStatus;
  paused?: boolean;
}) {
  const { color, variant } = badgeStyle[broadcastBadgeColors[status]];
  const badge = (
    <Badge color={color} variant={variant} tt="none" style={{ flexShrink: 0 }}>
      {broadcastStatusLabels[status]}
    </Badge>
  );
  if (!paused) return badge;
  return (
    <Group gap={6} wrap="nowrap" style={{ flexShrink: 0 }}>
      {badge}
      <Badge
        color="orange"
        variant="outline"
        tt="none"
        leftSection={<IconPlayerPause size={12} aria-hidden />}
      >
        Paused
      </Badge>
    </Group>
  );
}
