import { Card, Group, Stack, Text, Title } from '@mantine/core';
import { type ReactNode } from 'react';
import { CopyButton } from '../../ui/copy-button.tsx';

/** The account page's building blocks: a titled card, and a read-only value with its label. */

export function Section({
  title,
  description,
  children,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="md">
        <Stack gap={2}>
          <Title order={2} fz="lg">
            {title}
          </Title>
          {description && (
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          )}
        </Stack>
        {children}
      </Stack>
    </Card>
  );
}
export function ReadOnlyField({ label, value, copy }: { label: string; value: ReactNode; copy?: string }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase" style={{ letterSpacing: '0.04em' }}>
        {label}
      </Text>
      <Group gap={4} wrap="nowrap">
        <Text size="sm" component="div" style={{ wordBreak: 'break-word' }}>
          {value || (
            <Text span c="dimmed">
              Not set
            </Text>
          )}
        </Text>
        {copy && <CopyButton value={copy} label={`Copy ${label.toLowerCase()}`} />}
      </Group>
    </Stack>
  );
}
