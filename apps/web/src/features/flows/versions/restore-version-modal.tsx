import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { notifyError, notifySuccess } from '../../../lib/notify.ts';
import { useRestoreVersion } from './flow-versions.api.ts';

/** Asks before a restore; on an active flow it says the change reaches the people in it, and confirms that edit. */
export function RestoreVersionModal({
  flowId,
  number,
  isActive,
  onClose,
}: {
  flowId: number;
  number: number | null;
  isActive: boolean;
  onClose: () => void;
}) {
  const restore = useRestoreVersion(flowId);
  const confirm = () =>
    restore.mutate(
      { number: number!, confirmActiveEdit: isActive },
      {
        onSuccess: (data) => {
          notifySuccess(data.message);
          onClose();
        },
        onError: (error) => notifyError(error, "We couldn't restore this version."),
      },
    );
  return (
    <Modal opened={number !== null} onClose={onClose} title={`Restore version ${number ?? ''}?`} zIndex={400}>
      <Stack gap="md">
        <Text size="sm">
          The flow&rsquo;s steps, links and re-entry rule become those of version {number}. Steps that are in
          both keep the people waiting at them; people waiting at a step that version {number} does not have
          leave the flow.
        </Text>
        {isActive && (
          <Text size="sm" fw={500} c="orange.9">
            This flow is active: the change applies at once to the people in it.
          </Text>
        )}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color={isActive ? 'orange' : undefined} loading={restore.isPending} onClick={confirm}>
            Restore version {number}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
