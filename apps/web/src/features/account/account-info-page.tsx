import { Badge, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { formatDate } from '../../lib/format.ts';
import { CompanyLogo } from '../../ui/company-logo.tsx';
import { CopyButton } from '../../ui/copy-button.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { useAccount } from './account.api.ts';

const statusLabels = {
  trial: 'Trial',
  trialExpired: 'Trial expired',
  active: 'Active',
  canceled: 'Canceled',
  blocked: 'Suspended',
} as const;

function Field({ label, value, copy }: { label: string; value: ReactNode; copy?: string }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase" style={{ letterSpacing: '0.04em' }}>
        {label}
      </Text>
      <Group gap={4} wrap="nowrap">
        <Text size="sm" component="div" style={{ wordBreak: 'break-word' }}>
          {value || <Text span c="dimmed">Not set</Text>}
        </Text>
        {copy && <CopyButton value={copy} label={`Copy ${label.toLowerCase()}`} />}
      </Group>
    </Stack>
  );
}

const editNote = 'Editing these details is not available in this version yet; they show what the account holds today.';

/** /account/info, /account-info, /settings/account: the account's current fields, read-only. */
export function AccountInfoPage() {
  const account = useAccount();
  if (!account.data) return <LoadingSpinner />;
  const data = account.data;
  return (
    <Stack gap="lg" py="md">
      <Group gap="md">
        <CompanyLogo companyName={data.name ?? data.site} logo={data.logo} size={48} />
        <Stack gap={0}>
          <Title order={1} fz={28}>
            Your Account
          </Title>
          <Text c="dimmed" size="sm">
            {editNote}
          </Text>
        </Stack>
      </Group>
      <Card withBorder radius="md" p="lg">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
          <Field label="Account ID" value={String(data.accountId)} />
          <Field label="Status" value={<Badge variant="light">{statusLabels[data.status]}</Badge>} />
          <Field label="Account name" value={data.accountName ?? data.name} />
          <Field label="Site" value={data.site} />
          <Field label="Phone" value={data.phone} />
          <Field label="Time zone" value={data.timezone} />
          <Field label="Industry" value={data.industry} />
          <Field label="Estimated contacts" value={data.estimatedContacts} />
          <Field label="Mailing address" value={data.mailingAddress} />
          <Field label="People" value={data.peopleCount.toLocaleString()} />
          <Field label="Write key" value={<code>{data.writeKey}</code>} copy={data.writeKey} />
          {data.status === 'trial' && <Field label="Trial ends" value={formatDate(data.trialEndsAt)} />}
          <Field label="Created" value={formatDate(data.createdAt)} />
        </SimpleGrid>
      </Card>
    </Stack>
  );
}

/** /profile, /settings/profile: the signed-in team member, read-only. */
export function ProfilePage() {
  const account = useAccount();
  if (!account.data) return <LoadingSpinner />;
  const member = account.data.teamMember;
  return (
    <Stack gap="lg" py="md">
      <Stack gap={0}>
        <Title order={1} fz={28}>
          Your Profile
        </Title>
        <Text c="dimmed" size="sm">
          {editNote}
        </Text>
      </Stack>
      <Card withBorder radius="md" p="lg">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
          <Field label="Name" value={member.name} />
          <Field label="Email" value={member.email} />
          <Field label="Role" value={member.accountData.isOwner ? 'Owner' : 'Team member'} />
          <Field label="Sign-in" value={member.data.createdWithGoogleSignin ? 'Google' : 'Email and password'} />
        </SimpleGrid>
      </Card>
    </Stack>
  );
}
