import { Skeleton, Stack } from '@mantine/core';

/** Rows of a list that is loading, announced to screen readers as a status with its label. */
export function ListSkeleton({ label, rows = 4, height = 52 }: { label: string; rows?: number; height?: number }) {
  return (
    <Stack gap="xs" role="status" aria-label={label}>
      {Array.from({ length: rows }, (_, key) => (
        <Skeleton key={key} h={height} radius="sm" />
      ))}
    </Stack>
  );
}
