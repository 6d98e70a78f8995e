import {
  isValidSite,
  logoContentTypes,
  maxLogoBytes,
  messages,
  teamMessages,
  Account,
  type UpdateAccountBody,
} from '@herald/contracts';
import {
  Button,
  FileButton,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { CompanyLogo } from '../../ui/company-logo.tsx';
import { accountKey, LogoUploadError, useUploadLogo } from './account.api.ts';

/** The account page's Company form: the logo, then the name, site, phone, time zone and mailing address. */

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
      <CompanyLogo
        companyName={account.name ?? account.site}
        logo={account.logo}
        size={64}
        data-testid="account-logo"
      />
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          Logo
        </Text>
        {canWrite ? (
          <>
            <FileButton key={fileKey} onChange={onFile} accept={logoContentTypes.join(',')}>
              {(props) => (
                <Button
                  {...props}
                  size="xs"
                  variant="default"
                  leftSection={<IconUpload size={14} />}
                  loading={upload.isPending}
                  w="fit-content"
                >
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
            {account.logo
              ? 'Your company logo.'
              : 'No logo yet: the initials of the account name show instead.'}
          </Text>
        )}
      </Stack>
    </Group>
  );
}
export function AccountDetailsForm({ account, canWrite }: { account: Account; canWrite: boolean }) {
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
      setValues((current) => ({
        ...current,
        ...Object.fromEntries(changed.map((key) => [key, current[key].trim()])),
      }));
    }
  };

  return (
    <form onSubmit={(event) => void onSubmit(event)} noValidate>
      <Stack gap="md">
        <LogoSection account={account} canWrite={canWrite} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <TextInput
            label="Name"
            value={values.name}
            onChange={(e) => set('name')(e.currentTarget.value)}
            readOnly={!canWrite}
            maxLength={200}
            autoComplete="organization"
          />
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
          <TextInput
            label="Phone"
            type="tel"
            value={values.phone}
            onChange={(e) => set('phone')(e.currentTarget.value)}
            readOnly={!canWrite}
            maxLength={50}
            autoComplete="tel"
          />
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
