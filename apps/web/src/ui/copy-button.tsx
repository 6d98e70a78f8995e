import { ActionIcon, Tooltip } from '@mantine/core';
import { useClipboard } from '@mantine/hooks';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/** How long the copied confirmation stays (docs/web-app.md). */
export const copyConfirmationMs = 5_000;

/** Copies a value to the clipboard and confirms for 5 seconds. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const clipboard = useClipboard({ timeout: copyConfirmationMs });
  return (
    <Tooltip label={clipboard.copied ? 'Copied' : label} withArrow>
      <ActionIcon
        variant="subtle"
        color={clipboard.copied ? 'teal' : 'gray'}
        onClick={() => clipboard.copy(value)}
        aria-label={clipboard.copied ? 'Copied' : label}
      >
        {clipboard.copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
      </ActionIcon>
    </Tooltip>
  );
}
