import { Group, Text } from '@mantine/core';
import { CopyButton } from '../../ui/copy-button.tsx';

/** An email's id with a copy button: the `emailId` a transactional send names (Settings → Your Account). */
export function EmailIdTag({ id }: { id: number }) {
  return (
    <Group gap={0} wrap="nowrap" data-testid="email-id">
      <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
        ID {id}
      </Text>
      <CopyButton value={String(id)} label="Copy email ID" />
    </Group>
  );
}
