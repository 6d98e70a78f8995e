import {
  hasScopes,
  isValidSite,
  logoContentTypes,
  maxLogoBytes,
  messages,
  teamMessages,
  Account,
  type UpdateAccountBody,
} from '@herald/contracts';
import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  FileButton,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconAlertTriangle, IconKey, IconLock, IconUpload } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { api } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { CompanyLogo } from '../../ui/company-logo.tsx';
import { CopyButton } from '../../ui/copy-button.tsx';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { TransactionalCard } from '../transactional/transactional-card.tsx';
import { accountKey, LogoUploadError, useAccount, useRotateApiKey, useUploadLogo } from './account.api.ts';

const statusLabels = {
  trial: 'Trial',
  trialExpired: 'Trial expired',
  active: 'Active',
  canceled: 'Canceled',
  blocked: 'Suspended',
} as const;

/** The text fields of the form, each saved on its own with its own failure message (docs/team-and-accounts.md). */
const textFields = [
  { key: 'name', failure: "Couldn't save your account name." },
  { key: 'site', failure: "Couldn't save your account site." },
  { key: 'phone', failure: "Couldn't save your phone." },
  { key: 'timezone', failure: "Couldn't save your account timezone." },
  { key: 'mailingAddress', failure: "Couldn't save your mailing address." },
] as const;
type TextField = (typeof textFields)[number]['key'];
type FormValues = Record<TextField, string>;

const utmFailure = "Couldn't save Automatic UTM tagging settings.";
const logoTypesLabel = 'PNG, JPEG, GIF or WebP, up to 1 MB.';

function valuesOf(account: Account): FormValues {
  return {
    name: account.name ?? '',
    site: account.site ?? '',
    phone: account.phone ?? '',
    timezone: account.timezone ?? '',
    mailingAddress: account.mailingAddress ?? '',
  };
}

/** Fields saved: only non-empty and changed ones (docs/team-and-accounts.md). */
function changedFields(values: FormValues, account: Account): TextField[] {
  const saved = valuesOf(account);
  return textFields
    .map((field) => field.key)
    .filter((key) => {
      const value = values[key].trim();
      return value !== '' && value !== saved[key];
    });
}

function timeZoneOptions(current: string): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [];
  }
  const all = new Set(zones);
  all.add('UTC');
  if (current) all.add(current);
  return [...all].sort((a, b) => a.localeCompare(b));
}

function Section({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <Card withBorder radius="md" p="lg">
      <Stack gap="md">
        <Stack gap={2}>
          <Title order={2} fz="lg">
            {title}
          </Title>
          {description && (
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          )}
        </Stack>
        {children}
      </Stack>
    </Card>
  );
}

function ReadOnlyField({ label, value, copy }: { label: string; value: ReactNode; copy?: string }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase" style={{ letterSpacing: '0.04em' }}>
        {label}
      </Text>
      <Group gap={4} wrap="nowrap">
        <Text size="sm" component="div" style={{ wordBreak: 'break-word' }}>
          {value || (
            <Text span c="dimmed">
              Not set
            </Text>
          )}
        </Text>
        {copy && <CopyButton value={copy} label={`Copy ${label.toLowerCase()}`} />}
      </Group>
    </Stack>
  );
}

function LogoSection({ account, canWrite }: { account: Account; canWrite: boolean }) {
  const upload = useUploadLogo();
  const [fileKey, setFileKey] = useState(0);

  const onFile = (file: File | null) => {
    setFileKey((key) => key + 1);
    if (!file) return;
    if (!(logoContentTypes as readonly string[]).includes(file.type)) {
      notifyError(null, "Couldn't save your logo: the logo must be a PNG, JPEG, GIF or WebP image.");
      return;
    }
    if (file.size > maxLogoBytes) {
      notifyError(null, "Couldn't save your logo: the logo must be 1 MB or smaller.");
      return;
    }
    upload.mutate(file, {
      onSuccess: () => notifySuccess(messages.settingsSaved),
      onError: (error) =>
        notifyError(null, error instanceof LogoUploadError ? error.message : teamMessages.couldNotSaveLogo),
    });
  };

  return (
    <Group gap="md" wrap="nowrap" align="center">
      <CompanyLogo companyName={account.name ?? account.site} logo={account.logo} size={64} data-testid="account-logo" />
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          Logo
        </Text>
        {canWrite ? (
          <>
            <FileButton key={fileKey} onChange={onFile} accept={logoContentTypes.join(',')}>
              {(props) => (
                <Button {...props} size="xs" variant="default" leftSection={<IconUpload size={14} />} loading={upload.isPending} w="fit-content">
                  Upload logo
                </Button>
              )}
            </FileButton>
            <Text size="xs" c="dimmed">
              {logoTypesLabel}
            </Text>
          </>
        ) : (
          <Text size="xs" c="dimmed">
            {account.logo ? 'Your company logo.' : 'No logo yet: the initials of the account name show instead.'}
          </Text>
        )}
      </Stack>
    </Group>
  );
}

function DetailsForm({ account, canWrite }: { account: Account; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState<FormValues>(() => valuesOf(account));
  const [isSiteTouched, setIsSiteTouched] = useState(false);
  const [isSaving, setIsSaving] = useState(false);
  const zones = useMemo(() => timeZoneOptions(account.timezone), [account.timezone]);

  const trimmedSite = values.site.trim();
  const isSiteOk = trimmedSite === '' || isValidSite(trimmedSite);
  const siteError = isSiteTouched && !isSiteOk ? messages.doubleCheckSite : null;
  const changed = changedFields(values, account);
  const set = (key: TextField) => (value: string) => setValues((current) => ({ ...current, [key]: value }));

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setIsSiteTouched(true);
    if (!canWrite || isSaving || !isSiteOk || changed.length === 0) return;
    setIsSaving(true);
    let failures = 0;
    // One call per field so a failure names the field that was not saved.
    for (const field of textFields.filter((f) => changed.includes(f.key))) {
      const body: UpdateAccountBody = { [field.key]: values[field.key].trim() };
      try {
        const saved = await api.patch('/accounts/me', body, { schema: Account });
        queryClient.setQueryData<Account>(accountKey, saved);
      } catch (error) {
        failures += 1;
        notifyError(error, field.failure);
      }
    }
    setIsSaving(false);
    if (failures === 0) {
      notifySuccess(messages.settingsSaved);
      setValues((current) => ({ ...current, ...Object.fromEntries(changed.map((key) => [key, current[key].trim()])) }));
    }
  };

  return (
    <form onSubmit={(event) => void onSubmit(event)} noValidate>
      <Stack gap="md">
        <LogoSection account={account} canWrite={canWrite} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <TextInput label="Name" value={values.name} onChange={(e) => set('name')(e.currentTarget.value)} readOnly={!canWrite} maxLength={200} autoComplete="organization" />
          <TextInput
            label="Site"
            placeholder="yourcompany.com"
            value={values.site}
            onChange={(e) => set('site')(e.currentTarget.value)}
            onBlur={() => setIsSiteTouched(true)}
            error={siteError}
            readOnly={!canWrite}
            autoComplete="url"
          />
          <TextInput label="Phone" type="tel" value={values.phone} onChange={(e) => set('phone')(e.currentTarget.value)} readOnly={!canWrite} maxLength={50} autoComplete="tel" />
          <Select
            label="Timezone"
            data={zones}
            value={values.timezone || null}
            onChange={(value) => set('timezone')(value ?? '')}
            searchable
            readOnly={!canWrite}
            nothingFoundMessage="No time zone matches"
            limit={100}
            comboboxProps={{ withinPortal: true }}
          />
        </SimpleGrid>
        <Textarea
          label="Mailing address"
          description="Shown in the footer of your marketing emails."
          value={values.mailingAddress}
          onChange={(e) => set('mailingAddress')(e.currentTarget.value)}
          readOnly={!canWrite}
          autosize
          minRows={2}
          maxRows={6}
          maxLength={1000}
        />
        {canWrite && (
          <Group justify="flex-end">
            <Button type="submit" loading={isSaving} disabled={changed.length === 0 || !isSiteOk}>
              Save changes
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

function UtmSwitch({ account, canWrite }: { account: Account; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const [isSaving, setIsSaving] = useState(false);

  // Applied locally first, then saved; put back if the save fails (docs/team-and-accounts.md).
  const onChange = async (linkUTMs: boolean) => {
    const previous = queryClient.getQueryData<Account>(accountKey);
    if (previous) queryClient.setQueryData<Account>(accountKey, { ...previous, linkUTMs });
    setIsSaving(true);
    try {
      const saved = await api.patch('/accounts/me', { linkUTMs } satisfies UpdateAccountBody, { schema: Account });
      queryClient.setQueryData<Account>(accountKey, saved);
      notifySuccess(messages.settingsSaved);
    } catch (error) {
      const current = queryClient.getQueryData<Account>(accountKey);
      if (current) queryClient.setQueryData<Account>(accountKey, { ...current, linkUTMs: !linkUTMs });
      notifyError(error, utmFailure);
    } finally {
      setIsSaving(false);
    }
  };

  return (
    <Switch
      label="Automatic UTM tagging"
      description="Add utm_source, utm_medium and utm_campaign to the links in your emails so your analytics tool can tell where visits came from."
      checked={account.linkUTMs}
      disabled={!canWrite || isSaving}
      onChange={(event) => void onChange(event.currentTarget.checked)}
    />
  );
}

function ApiKeySection() {
  const rotate = useRotateApiKey();
  const [newKey, setNewKey] = useState<string | null>(null);

  const confirmRotate = () =>
    modals.openConfirmModal({
      title: 'Rotate API key?',
      children: (
        <Text size="sm">
          A new API key replaces the current one. The old key stops working right away, so every integration using it
          needs the new key.
        </Text>
      ),
      labels: { confirm: 'Rotate API key', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        rotate.mutate(undefined, {
          onSuccess: (result) => setNewKey(result.apiKey),
          onError: (error) => notifyError(error, teamMessages.couldNotRotateApiKey),
        }),
    });

  return (
    <Section
      title="API key"
      description="The secret key for Herald's API. It is shown only once, when it is created."
    >
      {newKey && (
        <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />} title="Copy your new API key now">
          <Stack gap="xs">
            <Text size="sm">This is the only time it is shown. The old key no longer works.</Text>
            <Group gap={4} wrap="nowrap">
              <Code style={{ wordBreak: 'break-all' }} data-testid="new-api-key">
                {newKey}
              </Code>
              <CopyButton value={newKey} label="Copy API key" />
            </Group>
          </Stack>
        </Alert>
      )}
      <Button
        leftSection={<IconKey size={16} />}
        variant="default"
        w="fit-content"
        onClick={confirmRotate}
        loading={rotate.isPending}
      >
        Rotate API key
      </Button>
    </Section>
  );
}

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
        <DetailsForm key={data.accountId} account={data} canWrite={canWrite} />
      </Section>
      <Section title="Links">
        <UtmSwitch account={data} canWrite={canWrite} />
      </Section>
      <Section title="Details">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
          <ReadOnlyField label="Account ID" value={String(data.accountId)} copy={String(data.accountId)} />
          <ReadOnlyField label="Status" value={<Badge variant="light">{statusLabels[data.status]}</Badge>} />
          <ReadOnlyField label="People" value={data.peopleCount.toLocaleString()} />
          <ReadOnlyField label="Write key" value={<Code>{data.writeKey}</Code>} copy={data.writeKey} />
          {data.status === 'trial' && <ReadOnlyField label="Trial ends" value={formatDate(data.trialEndsAt)} />}
          <ReadOnlyField label="Created" value={formatDate(data.createdAt)} />
        </SimpleGrid>
      </Section>
      {canRotate && <ApiKeySection />}
      <TransactionalCard />
    </Stack>
  );
}
