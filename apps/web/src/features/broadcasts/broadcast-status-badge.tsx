import { broadcastBadgeColors, broadcastStatusLabels, type BroadcastBadgeColor, type BroadcastStatus } from '@herald/contracts';
import { Badge } from '@mantine/core';

/** The spec's badge colours (work-areas.md §4) on this theme: colour and variant. */
const badgeStyle: Record<BroadcastBadgeColor, { color: string; variant: 'light' | 'filled' | 'outline' }> = {
  success: { color: 'green', variant: 'light' },
  primary: { color: 'indigo', variant: 'light' },
  light: { color: 'gray', variant: 'light' },
  warning: { color: 'orange', variant: 'light' },
  secondary: { color: 'gray', variant: 'outline' },
  danger: { color: 'red', variant: 'light' },
};

/** A broadcast's status with the spec's label ('A/B Testing', 'Sending A/B test winner', others capitalised). */
export function BroadcastStatusBadge({ status }: { status: BroadcastStatus }) {
  const { color, variant } = badgeStyle[broadcastBadgeColors[status]];
  return (
    <Badge color={color} variant={variant} tt="none" style={{ flexShrink: 0 }}>
      {broadcastStatusLabels[status]}
    </Badge>
  );
}
