import { Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { ReactNode } from 'react';

interface EmptyStateProps {
  title: string;
  description: ReactNode;
  icon?: ReactNode;
  action?: ReactNode;
}

/** A centred card saying there is nothing here, and why. */
export function EmptyState({ title, description, icon, action }: EmptyStateProps) {
  return (
    <Paper withBorder radius="md" p="xl" maw={560} mx="auto" mt="xl">
      <Stack align="center" gap="sm" ta="center">
        {icon && (
          <ThemeIcon size={56} radius="xl" variant="light">
            {icon}
          </ThemeIcon>
        )}
        <Title order={3}>{title}</Title>
        <Text c="dimmed">{description}</Text>
        {action}
      </Stack>
    </Paper>
  );
}
