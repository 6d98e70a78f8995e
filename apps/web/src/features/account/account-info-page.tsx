import { hasScopes } from '@herald/contracts';
import { Alert, Badge, Code, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { formatDate } from '../../lib/format.ts';
import { CompanyLogo } from '../../ui/company-logo.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { TransactionalCard } from '../transactional/transactional-card.tsx';
import { SsoSection } from '../sso/sso-section.tsx';
import { TeamPolicySection } from '../two-factor/team-policy-section.tsx';
import { AccountApiKeySection } from './account-api-key-section.tsx';
import { AccountDetailsForm } from './account-details-form.tsx';
import { ReadOnlyField, Section } from './account-section.tsx';
import { AccountUtmSwitch } from './account-utm-switch.tsx';
import { TrackingApiSection } from './tracking-api-section.tsx';
import { useAccount } from './account.api.ts';

const statusLabels = {
  trial: 'Trial',
  trialExpired: 'Trial expired',
  active: 'Active',
  canceled: 'Canceled',
  blocked: 'Suspended',
} as const;

/** /account/info, /account-info, /settings/account: the account's settings. */
export function AccountInfoPage() {
  const account = useAccount();
  if (!account.data) return <LoadingSpinner />;
  const data = account.data;
  const accountData = data.teamMember.accountData;
  const canWrite = hasScopes(accountData, ['account:write']);
  const canRotate = hasScopes(accountData, ['apiKeys:write']);

  return (
    <Stack gap="lg" py="md" maw={860}>
      <Group gap="md" wrap="nowrap">
        <CompanyLogo companyName={data.name ?? data.site} logo={data.logo} size={48} />
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Title order={1} fz={28}>
            Your Account
          </Title>
          <Text c="dimmed" size="sm" truncate>
            {data.name || data.site || `Account ${data.accountId}`}
          </Text>
        </Stack>
      </Group>
      {!canWrite && (
        <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
          You can see these settings. Changing them needs the “Edit account settings” permission.
        </Alert>
      )}
      <Section title="Company">
        <AccountDetailsForm key={data.accountId} account={data} canWrite={canWrite} />
      </Section>
      <Section title="Links">
        <AccountUtmSwitch account={data} canWrite={canWrite} />
      </Section>
      <Section title="Details">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
          <ReadOnlyField label="Account ID" value={String(data.accountId)} copy={String(data.accountId)} />
          <ReadOnlyField label="Status" value={<Badge variant="light">{statusLabels[data.status]}</Badge>} />
          <ReadOnlyField label="People" value={data.peopleCount.toLocaleString()} />
          <ReadOnlyField label="Write key" value={<Code>{data.writeKey}</Code>} copy={data.writeKey} />
          {data.status === 'trial' && (
            <ReadOnlyField label="Trial ends" value={formatDate(data.trialEndsAt)} />
          )}
          <ReadOnlyField label="Created" value={formatDate(data.createdAt)} />
        </SimpleGrid>
      </Section>
      <TrackingApiSection account={data} canWrite={canWrite} />
      <TeamPolicySection canWrite={canWrite} />
      {canWrite && data.accountId === data.mainAccountId && <SsoSection />}
      {canRotate && <AccountApiKeySection />}
      <TransactionalCard />
    </Stack>
  );
}
