import { hasScopes } from '@herald/contracts';
import { Alert, SimpleGrid, Stack } from '@mantine/core';
import { IconCircleCheck, IconInfinity, IconX } from '@tabler/icons-react';
import { useSearchParams } from 'react-router';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { ListPage } from '../../ui/list-page.tsx';
import { useAccount } from '../account/account.api.ts';
import { useBilling } from './billing.api.ts';
import { InvoicesCard } from './invoices-card.tsx';
import { CurrentPlanCard, PeopleUsageCard, UsageAlert } from './plan-cards.tsx';
import { UpgradePlanDialog } from './upgrade-plan-dialog.tsx';

/** ?upgrade=1 opens the upgrade dialog (from the top bar's star, a banner or a link). */
export const upgradeParam = 'upgrade';

/**
 * Back from the provider's page (?checkout=done or ?checkout=canceled): what happened, and that the plan changes
 * when the provider confirms the payment (its webhook), not on the return itself.
 */
function CheckoutReturn() {
  const [params, setParams] = useSearchParams();
  const outcome = params.get('checkout');
  if (outcome !== 'done' && outcome !== 'canceled') return null;
  const dismiss = () =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('checkout');
        return next;
      },
      { replace: true },
    );
  return outcome === 'done' ? (
    <Alert
      color="teal"
      variant="light"
      role="status"
      icon={<IconCircleCheck size={18} />}
      title="Thank you: your payment is on its way"
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={dismiss}
    >
      Your new plan shows here as soon as the payment provider confirms it, usually within a minute.
    </Alert>
  ) : (
    <Alert
      color="gray"
      variant="light"
      role="status"
      icon={<IconX size={18} />}
      title="Checkout canceled"
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={dismiss}
    >
      Nothing was charged and your plan is unchanged.
    </Alert>
  );
}

/** /billing and /settings/billing: plan, trial, people against the limit, invoices, and the upgrade dialog. */
export function BillingPage() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['billing:read']) : false;
  const billing = useBilling({ enabled: canRead });
  const dialog = usePopupParam(upgradeParam);
  const openDialog = () => dialog.open('1');

  return (
    <ListPage
      title="Plan and Billing"
      description="Your plan, your trial and the people your plan includes."
      isReady={account.data !== undefined}
      gate={{
        canRead,
        title: "You can't see the plan and billing",
        description:
          'Seeing the plan needs the “See plan and billing” permission. Ask an owner of the account to give it to you.',
      }}
      query={billing}
      loadingLabel="Loading plan and billing"
      skeletonHeights={[200, 160]}
      errorFallback="We couldn't load your plan."
      isEmpty={billing.data?.mode === 'off'}
      empty={
        <EmptyState
          icon={<IconInfinity size={28} />}
          title="Billing is off on this server"
          description="Every account here is unlimited: no trial end, no people limit and nothing to pay."
        />
      }
    >
      {() =>
        billing.data && (
          <Stack gap="md">
            <CheckoutReturn />
            <UsageAlert billing={billing.data} onUpgrade={openDialog} />
            <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
              <CurrentPlanCard billing={billing.data} onUpgrade={openDialog} />
              <PeopleUsageCard billing={billing.data} />
            </SimpleGrid>
            <InvoicesCard />
            <UpgradePlanDialog opened={dialog.value !== null} onClose={dialog.close} />
          </Stack>
        )
      }
    </ListPage>
  );
}
