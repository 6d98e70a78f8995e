import { Stack, Text, Tooltip } from '@mantine/core';

/** A labelled number (a send's figures); with a hint, a tooltip that keyboard focus opens too explains it. */
export function Figure({ label, value, hint }: { label: string; value: string; hint?: string }) {
  const body = (
    <Stack gap={0}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
    </Stack>
  );
  return hint ? (
    <Tooltip label={hint} multiline w={240}>
      <div tabIndex={0}>{body}</div>
    </Tooltip>
  ) : (
    body
  );
}
