import { Button } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { lazy, Suspense, useEffect, useState } from 'react';

/**
 * The dialog brings the plans' contract schemas and a Select: it stays out of the first page's download (the button
 * is on the account-state screens, which every signed-in load may show) and is fetched as soon as the button shows.
 */
const loadDialog = () => import('./upgrade-plan-dialog.tsx');
const UpgradePlanDialog = lazy(() => loadDialog().then((m) => ({ default: m.UpgradePlanDialog })));

/** 'Choose a plan' on the expired-trial and canceled screens: opens the upgrade dialog where the user is. */
export function ChoosePlanButton() {
  const [opened, dialog] = useDisclosure(false);
  const [wasOpened, setWasOpened] = useState(false);
  useEffect(() => void loadDialog(), []);
  const open = () => {
    setWasOpened(true);
    dialog.open();
  };
  return (
    <>
      <Button size="md" onClick={open}>
        Choose a plan
      </Button>
      {wasOpened && (
        <Suspense fallback={null}>
          <UpgradePlanDialog opened={opened} onClose={dialog.close} confirmLabel="Choose this plan" />
        </Suspense>
      )}
    </>
  );
}
