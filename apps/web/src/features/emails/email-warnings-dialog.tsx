import type { EmailWarning } from '@herald/contracts';
import { Alert, Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';

/** Before an email is used: what would make it fail people or mailbox providers, with the choice to go on anyway. */
export function EmailWarningsDialog({
  warnings,
  onFix,
  onContinue,
  continueLabel,
}: {
  warnings: EmailWarning[] | null;
  onFix: () => void;
  onContinue?: () => void;
  continueLabel?: string;
}) {
  return (
    <Modal opened={warnings !== null} onClose={onFix} title="Check your email">
      <Stack gap="md">
        {warnings && warnings.length > 0 ? (
          <Alert
            color="yellow"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            title={`${warnings.length} thing${warnings.length === 1 ? '' : 's'} to look at`}
          >
            <List size="sm" spacing={6}>
              {warnings.map((warning) => (
                <List.Item key={`${warning.code}:${warning.message}`}>{warning.message}</List.Item>
              ))}
            </List>
          </Alert>
        ) : (
          <Text size="sm">
            No problems found: the email has a subject, an unsubscribe link, your mailing address and merge
            tags that all exist.
          </Text>
        )}
        <Group justify="flex-end" gap="sm">
          {onContinue && warnings && warnings.length > 0 && (
            <Button variant="default" onClick={onContinue}>
              {continueLabel ?? 'Continue anyway'}
            </Button>
          )}
          <Button onClick={onFix}>{warnings && warnings.length > 0 ? 'Fix it' : 'Close'}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
