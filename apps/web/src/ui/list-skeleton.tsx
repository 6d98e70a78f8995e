import { Skeleton, Stack } from '@mantine/core';

interface ListSkeletonProps {
  label: string;
  rows?: number;
  height?: number;
  /** Bars of these heights, top to bottom, instead of `rows` bars of `height`. */
  heights?: number[];
}

/** Rows of a list that is loading, announced to screen readers as a status with its label. */
export function ListSkeleton({ label, rows = 4, height = 52, heights }: ListSkeletonProps) {
  return (
    <Stack gap="xs" role="status" aria-label={label}>
      {(heights ?? Array.from({ length: rows }, () => height)).map((h, key) => (
        <Skeleton key={key} h={h} radius="sm" />
      ))}
    </Stack>
  );
}
