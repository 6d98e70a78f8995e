import { Stack, Text, Title } from '@mantine/core';
import { IconLayoutDashboard } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { EmptyState } from '../../ui/empty-state.tsx';

interface AreaPageProps {
  title: string;
  description: string;
  icon?: ReactNode;
}

/** An area of the product that this version does not include yet: says so plainly, shows no invented data. */
export function AreaPage({ title, description, icon }: AreaPageProps) {
  return (
    <Stack gap="lg" py="md">
      <Stack gap={4}>
        <Title order={1} fz={28}>
          {title}
        </Title>
        <Text c="dimmed">{description}</Text>
      </Stack>
      <EmptyState
        icon={icon ?? <IconLayoutDashboard size={28} />}
        title={`${title} isn't available in this version yet`}
        description="This part of Herald is not included in this version. Your account, sign-in and quick start work today; this area will open here once it ships."
      />
    </Stack>
  );
}
