import { twoFactorMessages } from '@herald/contracts';
import { Text } from '@mantine/core';
import { notifySuccess } from '../../lib/notify.ts';
import { ProofModal } from './proof-modal.tsx';
import { useDisableTwoFactor, useNewRecoveryCodes } from './two-factor.api.ts';

/** Turning two-factor off proves the user again: a code (or recovery code) or the password. */
export function DisableTwoFactorModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const disable = useDisableTwoFactor();
  const close = () => {
    disable.reset();
    onClose();
  };
  return (
    <ProofModal
      opened={opened}
      onClose={close}
      title="Turn off two-factor sign-in?"
      submitLabel="Turn off"
      color="red"
      isPending={disable.isPending}
      fallbackError={twoFactorMessages.wrongCodeOrPassword}
      onSubmit={async (proof) => {
        await disable.mutateAsync(proof);
        notifySuccess(twoFactorMessages.disabled);
        close();
      }}
    />
  );
}

/** Ten new recovery codes, proved like turning two-factor off; `onCodes` shows them. */
export function NewRecoveryCodesModal({
  opened,
  onClose,
  onCodes,
}: {
  opened: boolean;
  onClose: () => void;
  onCodes: (codes: string[]) => void;
}) {
  const regenerate = useNewRecoveryCodes();
  const close = () => {
    regenerate.reset();
    onClose();
  };
  return (
    <ProofModal
      opened={opened}
      onClose={close}
      title="Make new recovery codes?"
      submitLabel="Make new codes"
      isPending={regenerate.isPending}
      fallbackError={twoFactorMessages.wrongCodeOrPassword}
      onSubmit={async (proof) => {
        const result = await regenerate.mutateAsync(proof);
        close();
        onCodes(result.recoveryCodes);
      }}
    >
      <Text size="sm">
        You get ten new recovery codes, shown once. Your current recovery codes, used or not, stop working.
      </Text>
    </ProofModal>
  );
}
