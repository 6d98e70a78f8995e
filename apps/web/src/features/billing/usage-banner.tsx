import { hasScopes, type Account } from '@herald/contracts';
import { Alert, Anchor, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { Link, useLocation } from 'react-router';
import { useBilling } from './billing-status.api.ts';

/** Above every page while the account is at 90% or more of its plan's people limit (not on the billing page itself). */
export function UsageBanner({ account }: { account: Account }) {
  const location = useLocation();
  const onBillingPage = location.pathname === '/billing' || location.pathname === '/settings/billing';
  const enabled =
    Boolean(account.payment?.plan) &&
    hasScopes(account.teamMember.accountData, ['billing:read']) &&
    !onBillingPage;
  const billing = useBilling({ enabled });
  if (!enabled || !billing.data || billing.data.usage === 'ok' || billing.data.peopleUpperLimit === null)
    return null;
  const over = billing.data.usage === 'over';
  return (
    <Alert
      variant="light"
      color={over ? 'red' : 'orange'}
      icon={<IconAlertTriangle size={18} />}
      mb="md"
      role="status"
    >
      <Text size="sm">
        {billing.data.peopleCount.toLocaleString('en-US')} of{' '}
        {billing.data.peopleUpperLimit.toLocaleString('en-US')} people: your account{' '}
        {over ? 'has reached' : 'is close to'} its plan&apos;s limit. Nothing stops and nothing is deleted.{' '}
        <Anchor component={Link} to="/billing?upgrade=1" size="sm">
          See larger plans
        </Anchor>
      </Text>
    </Alert>
  );
}
