import { Button } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { UpgradePlanDialog } from './upgrade-plan-dialog.tsx';

/** 'Choose a plan' on the expired-trial and canceled screens: opens the upgrade dialog where the user is. */
export function ChoosePlanButton() {
  const [opened, dialog] = useDisclosure(false);
  return (
    <>
      <Button size="md" onClick={dialog.open}>
        Choose a plan
      </Button>
      <UpgradePlanDialog opened={opened} onClose={dialog.close} confirmLabel="Choose this plan" />
    </>
  );
}
