import { Alert, Code, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { CopyButton } from '../../ui/copy-button.tsx';

/** The ten recovery codes, shown once after setup. */
export function RecoveryCodesPanel({ codes, children }: { codes: string[]; children?: ReactNode }) {
  return (
    <Alert
      color="orange"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title="Save your recovery codes now"
    >
      <Stack gap="sm">
        <Text size="sm">
          If you lose your phone, each of these codes signs you in once instead of a code from the app. This
          is the only time they are shown: keep them somewhere safe, such as a password manager.
        </Text>
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" data-testid="recovery-codes">
          {codes.map((code) => (
            <Code key={code} fz="sm" ta="center">
              {code}
            </Code>
          ))}
        </SimpleGrid>
        <Group gap="xs">
          <CopyButton value={codes.join('\n')} label="Copy recovery codes" />
          <Text size="sm" c="dimmed">
            Copy all codes
          </Text>
        </Group>
        {children}
      </Stack>
    </Alert>
  );
}
