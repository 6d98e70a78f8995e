import { flowMessages } from '@herald/contracts';
import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';

/**
 * The confirm modal before the first change to an active flow (docs/flows.md): true when confirmed,
 * false when cancelled or closed (the change is then dropped).
 */
export function confirmActiveEdit(): Promise<boolean> {
  return new Promise((resolve) => {
    let isSettled = false;
    const settle = (answer: boolean) => {
      if (isSettled) return;
      isSettled = true;
      resolve(answer);
    };
    modals.openConfirmModal({
      title: 'Change an active flow?',
      children: (
        <Text size="sm">
          {flowMessages.confirmActiveEdit} People already waiting continue on the changed flow. You will not
          be asked again until the flow is switched off and on.
        </Text>
      ),
      labels: { confirm: 'Change the flow', cancel: 'Cancel' },
      onConfirm: () => settle(true),
      onCancel: () => settle(false),
      onClose: () => settle(false),
    });
  });
}
