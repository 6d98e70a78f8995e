import { hasScopes } from '@herald/contracts';
import { SimpleGrid, Stack } from '@mantine/core';
import { IconInfinity, IconLock } from '@tabler/icons-react';
import { errorMessage } from '../../lib/api.ts';
import { usePopupParam } from '../../lib/use-popup-param.ts';
import { EmptyState } from '../../ui/empty-state.tsx';
import { LoadError } from '../../ui/load-error.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { useAccount } from '../account/account.api.ts';
import { useBilling } from './billing.api.ts';
import { InvoicesCard } from './invoices-card.tsx';
import { CurrentPlanCard, PeopleUsageCard, UsageAlert } from './plan-cards.tsx';
import { UpgradePlanDialog } from './upgrade-plan-dialog.tsx';

/** ?upgrade=1 opens the upgrade dialog (from the top bar's star, a banner or a link). */
export const upgradeParam = 'upgrade';

/** /billing and /settings/billing: plan, trial, people against the limit, invoices, and the upgrade dialog. */
export function BillingPage() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canRead = accountData ? hasScopes(accountData, ['billing:read']) : false;
  const billing = useBilling({ enabled: canRead });
  const dialog = usePopupParam(upgradeParam);
  const openDialog = () => dialog.open('1');

  const header = (
    <PageHeader
      title="Plan and Billing"
      description="Your plan, your trial and the people your plan includes."
    />
  );
  let content;
  if (!account.data) content = <LoadingSpinner />;
  else if (!canRead)
    content = (
      <EmptyState
        icon={<IconLock size={28} />}
        title="You can't see the plan and billing"
        description="Seeing the plan needs the “See plan and billing” permission. Ask an owner of the account to give it to you."
      />
    );
  else if (billing.isPending) content = <LoadingSpinner label="Loading plan and billing" />;
  else if (billing.isError)
    content = (
      <LoadError
        message={errorMessage(billing.error, "We couldn't load your plan.")}
        onRetry={() => void billing.refetch()}
      />
    );
  else if (billing.data.mode === 'off')
    content = (
      <EmptyState
        icon={<IconInfinity size={28} />}
        title="Billing is off on this server"
        description="Every account here is unlimited: no trial end, no people limit and nothing to pay."
      />
    );
  else
    content = (
      <Stack gap="md">
        <UsageAlert billing={billing.data} onUpgrade={openDialog} />
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
          <CurrentPlanCard billing={billing.data} onUpgrade={openDialog} />
          <PeopleUsageCard billing={billing.data} />
        </SimpleGrid>
        <InvoicesCard />
        <UpgradePlanDialog opened={dialog.value !== null} onClose={dialog.close} />
      </Stack>
    );

  return (
    <Stack gap="lg" py="md">
      {header}
      {content}
    </Stack>
  );
}
