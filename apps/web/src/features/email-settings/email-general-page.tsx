import { emailMessages } from '@herald/contracts';
import {
  Alert,
  Button,
  Card,
  Group,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { useEffect, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { LoadingSpinner } from '../../ui/loading-spinner.tsx';
import { PageHeader } from '../../ui/page-header.tsx';
import { useUpdateAccount } from '../account/account.api.ts';
import { addressProblem } from '../emails/email-draft.ts';
import { DoubleOptInCard } from '../consent/double-opt-in-card.tsx';
import { QuietHoursCard } from '../send-times/quiet-hours-card.tsx';
import { EmailSettingsNav } from '../senders/email-settings-nav.tsx';
import { useEmailSettingsAccess } from './email-settings-access.ts';

function Section({
  title,
  description,
  children,
}: {
  title: string;
  description: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack gap="sm">
        <div>
          <Title order={2} fz="lg">
            {title}
          </Title>
          <Text size="sm" c="dimmed">
            {description}
          </Text>
        </div>
        {children}
      </Stack>
    </Card>
  );
}

/** /settings/email/general: the mailing address every email prints, the default sender, automatic UTM tagging. */
export function EmailGeneralPage() {
  const { account, canWrite } = useEmailSettingsAccess();
  const update = useUpdateAccount();
  const data = account.data;
  const [address, setAddress] = useState('');
  const [fromName, setFromName] = useState('');
  const [fromEmail, setFromEmail] = useState('');
  const [fromError, setFromError] = useState<string | null>(null);
  useEffect(() => {
    if (!data) return;
    setAddress(data.mailingAddress ?? '');
    setFromName(data.defaultFromName ?? '');
    setFromEmail(data.defaultFromEmail ?? '');
  }, [data]);
  if (!data) return <LoadingSpinner />;

  const saveAddress = () =>
    update.mutate(
      { mailingAddress: address.trim() },
      {
        onSuccess: () => notifySuccess('✅ Mailing address saved.'),
        onError: (error) => notifyError(error, emailMessages.mailingAddressError),
      },
    );
  const saveSender = () => {
    const problem = fromEmail.trim() ? addressProblem(fromEmail) : null;
    setFromError(problem);
    if (problem) return;
    update.mutate(
      { defaultFromName: fromName.trim(), defaultFromEmail: fromEmail.trim() },
      {
        onSuccess: () => notifySuccess('✅ Default sender saved.'),
        onError: (error) => notifyError(error, "Couldn't save the default sender."),
      },
    );
  };
  const toggleUtms = (linkUTMs: boolean) =>
    update.mutate(
      { linkUTMs },
      {
        onSuccess: () =>
          notifySuccess(
            linkUTMs ? '✅ Links will be tagged with UTM parameters.' : '✅ Automatic UTM tagging is off.',
          ),
        onError: (error) => notifyError(error, emailMessages.utmError),
      },
    );

  return (
    <Stack gap="lg" py="md" maw={760}>
      <PageHeader
        title="Email Settings"
        description="Defaults for every email you send from this account."
        actions={
          <Button variant="default" component={Link} to="/settings/email/fonts">
            Custom fonts
          </Button>
        }
      />
      <EmailSettingsNav />
      {!canWrite && (
        <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
          You can see these settings. Changing them needs the “Email settings” or “Account settings”
          permission.
        </Alert>
      )}
      <Section
        title="Mailing address"
        description={
          <>
            Printed where an email uses {'{{ account.mailingAddress }}'}, usually the footer. Anti-spam laws
            ask for a postal address in every marketing email.
          </>
        }
      >
        <Textarea
          label="Mailing address"
          autosize
          minRows={2}
          maxRows={5}
          value={address}
          onChange={(e) => setAddress(e.currentTarget.value)}
          readOnly={!canWrite}
          placeholder="1 Engine Way, London N1 9GU, United Kingdom"
        />
        {canWrite && (
          <Group justify="flex-end">
            <Button
              onClick={saveAddress}
              loading={update.isPending && update.variables?.mailingAddress !== undefined}
              disabled={address.trim() === (data.mailingAddress ?? '')}
            >
              Save address
            </Button>
          </Group>
        )}
      </Section>
      <Section
        title="Default sender"
        description="New emails start with this name and address. Each email can still change them."
      >
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput
            label="From name"
            value={fromName}
            onChange={(e) => setFromName(e.currentTarget.value)}
            readOnly={!canWrite}
            placeholder="Ada at Analytical"
          />
          <TextInput
            label="From email"
            type="email"
            value={fromEmail}
            onChange={(e) => (setFromEmail(e.currentTarget.value), setFromError(null))}
            readOnly={!canWrite}
            error={fromError}
            placeholder="ada@example.com"
          />
        </SimpleGrid>
        {canWrite && (
          <Group justify="flex-end">
            <Button
              onClick={saveSender}
              loading={update.isPending && update.variables?.defaultFromEmail !== undefined}
              disabled={
                fromName.trim() === (data.defaultFromName ?? '') &&
                fromEmail.trim() === (data.defaultFromEmail ?? '')
              }
            >
              Save sender
            </Button>
          </Group>
        )}
      </Section>
      <Section
        title="Automatic UTM tagging"
        description="Adds utm_source=herald, utm_medium=email and utm_campaign (the email's name) to the links of the emails you send, so your analytics tool credits them."
      >
        <Switch
          label="Tag links in my emails"
          checked={data.linkUTMs}
          onChange={(e) => toggleUtms(e.currentTarget.checked)}
          disabled={!canWrite || update.isPending}
        />
      </Section>
      <QuietHoursCard canWrite={canWrite} timeZone={data.timezone} />
      <DoubleOptInCard canWrite={canWrite} />
    </Stack>
  );
}
