import { Center } from '@mantine/core';
import { LoadingSpinner } from './loading-spinner.tsx';

/** Covers the viewport while something the whole screen depends on loads. */
export function FullScreenLoader({ label }: { label?: string }) {
  return (
    <Center h="100vh" w="100%" bg="gray.0">
      <LoadingSpinner label={label} size="lg" />
    </Center>
  );
}
