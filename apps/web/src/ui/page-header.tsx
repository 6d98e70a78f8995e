import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

interface PageHeaderProps {
  title: ReactNode;
  description: ReactNode;
  /** The page's buttons, on the right (they wrap below the title on narrow screens). */
  actions?: ReactNode;
  /** A link back up, shown above the title. */
  back?: ReactNode;
  /** Shown beside the title, e.g. a status badge; the title may then be long data, so it breaks anywhere. */
  badge?: ReactNode;
}

/** A page's top: its title (the page's only h1), a line saying what it is for, and its primary actions. */
export function PageHeader({ title, description, actions, back, badge }: PageHeaderProps) {
  const heading = badge ? (
    <Group gap="sm" wrap="wrap">
      <Title order={1} fz={28} style={{ wordBreak: 'break-word' }}>
        {title}
      </Title>
      {badge}
    </Group>
  ) : (
    <Title order={1} fz={28}>
      {title}
    </Title>
  );
  return (
    <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
      <Stack gap={back || badge ? 4 : 2} style={badge ? { minWidth: 0 } : undefined}>
        {back}
        {heading}
        <Text c="dimmed" size="sm">
          {description}
        </Text>
      </Stack>
      {actions}
    </Group>
  );
}
