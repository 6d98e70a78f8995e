import type { AiSuggestion } from '@herald/contracts';
import { Button, Group, Paper, Text } from '@mantine/core';
import { IconCornerDownLeft } from '@tabler/icons-react';
import { CopyButton } from '../../ui/copy-button.tsx';
import { formatRelative } from '../../lib/format.ts';

/** One drafted text with Copy and Insert; Insert is left out where the email cannot be changed. */
export function AiSuggestionItem({
  suggestion,
  onInsert,
}: {
  suggestion: AiSuggestion;
  onInsert: (() => void) | undefined;
}) {
  const isSubject = suggestion.useCase === 'subjectLine';
  return (
    <Paper
      withBorder
      radius="md"
      px="sm"
      py="xs"
      component="li"
      style={{ listStyle: 'none' }}
      aria-label={isSubject ? suggestion.content : 'Suggestion'}
    >
      <Text
        size="sm"
        style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
        fw={isSubject ? 500 : undefined}
      >
        {suggestion.content}
      </Text>
      <Group justify="space-between" align="center" gap="xs" mt={6}>
        <Text size="xs" c="dimmed">
          {formatRelative(suggestion.createdAt)}
        </Text>
        <Group gap={4} wrap="nowrap">
          <CopyButton value={suggestion.content} label="Copy" />
          {onInsert && (
            <Button
              size="xs"
              variant="light"
              leftSection={<IconCornerDownLeft size={14} />}
              onClick={onInsert}
            >
              {isSubject ? 'Use as subject' : 'Insert'}
            </Button>
          )}
        </Group>
      </Group>
    </Paper>
  );
}
