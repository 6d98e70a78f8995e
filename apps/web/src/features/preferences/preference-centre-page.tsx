import { sendingMessages, type CommunicationPreferences, type PreferenceValue } from '@herald/contracts';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Divider,
  Group,
  Paper,
  Stack,
  Switch,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconMailOff, IconShieldCheck } from '@tabler/icons-react';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { CompanyLogo } from '../../ui/company-logo.tsx';
import { ListBody } from '../../ui/list-page.tsx';
import { LinkProblem, PreviewNote, PublicCard } from './public-card.tsx';
import { usePreferences, useSavePreferences, useUnsubscribeFromAll } from './preferences.api.ts';

const previewText =
  'Recipients who follow this link see their own preferences here: a switch for each marketing category, and the option to unsubscribe from everything.';

/** Each marketing category's switch as the recipient sees it: anything but an opt-out is on, and all are off after unsubscribing from all. */
function switchesOf(data: CommunicationPreferences): Record<string, boolean> {
  return Object.fromEntries(
    data.categories
      .filter((c) => c.type === 'marketing')
      .map((c) => [
        String(c.id),
        !data.unsubscribedFromAll && data.categoriesForPerson[String(c.id)] !== 'optOut',
      ]),
  );
}

function PreferencesForm({ data, token }: { data: CommunicationPreferences; token: string }) {
  const save = useSavePreferences(token);
  const unsubscribeAll = useUnsubscribeFromAll(token);
  const [switches, setSwitches] = useState(() => switchesOf(data));
  // Fresh data from the server (after a save, an unsubscribe from all, or any refetch) resets the switches only when
  // nothing is being changed: a switch the person just turned is never undone by a read that arrives after it.
  const [base, setBase] = useState(data);
  if (base !== data) {
    const before = switchesOf(base);
    const isEditing = Object.keys(switches).some((id) => switches[id] !== before[id]);
    setBase(data);
    if (!isEditing) setSwitches(switchesOf(data));
  }
  const saved = switchesOf(data);
  const marketing = data.categories.filter((c) => c.type === 'marketing');
  const transactional = data.categories.filter((c) => c.type === 'transactional');
  const changed = Object.keys(switches).filter((id) => switches[id] !== saved[id]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (changed.length === 0 || save.isPending) return;
    // Opting in again lifts an unsubscribe from all; every switch is then saved, so none comes back on unasked.
    const ids = data.unsubscribedFromAll ? Object.keys(switches) : changed;
    const choices: Record<string, PreferenceValue> = Object.fromEntries(
      ids.map((id) => [id, switches[id] ? 'optIn' : 'optOut']),
    );
    save.mutate(choices, {
      onSuccess: () => notifySuccess(sendingMessages.preferencesUpdated),
      onError: (error) => notifyError(error, sendingMessages.preferencesError),
    });
  };

  const confirmUnsubscribeAll = () =>
    modals.openConfirmModal({
      title: 'Unsubscribe from all?',
      children: (
        <Text size="sm">
          You will stop receiving every marketing email from {data.accountName}. Messages about your account,
          such as receipts, still arrive.
        </Text>
      ),
      labels: { confirm: 'Unsubscribe from all', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        unsubscribeAll.mutate(undefined, {
          onSuccess: () => notifySuccess(sendingMessages.unsubscribed),
          onError: (error) => notifyError(error, sendingMessages.preferencesError),
        }),
    });

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        {data.unsubscribedFromAll && (
          <Alert variant="light" color="orange" icon={<IconMailOff size={18} />}>
            You are unsubscribed from all marketing emails from {data.accountName}. Turn on what you would
            like to receive and save.
          </Alert>
        )}
        {marketing.length > 0 && (
          <Stack gap="sm" role="group" aria-labelledby="marketing-heading">
            <Title order={2} fz="lg" id="marketing-heading">
              What you receive
            </Title>
            {marketing.map((category) => {
              const id = String(category.id);
              const isSource = data.categoryId === category.id;
              return (
                <Paper
                  key={id}
                  withBorder
                  radius="md"
                  p="sm"
                  bg={isSource ? 'indigo.0' : undefined}
                  style={isSource ? { borderColor: 'var(--mantine-color-indigo-4)' } : undefined}
                  aria-current={isSource ? 'true' : undefined}
                >
                  <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
                    <Switch
                      label={category.name}
                      description={category.description || undefined}
                      checked={switches[id] ?? true}
                      onChange={(event) => {
                        const checked = event.currentTarget.checked;
                        setSwitches((current) => ({ ...current, [id]: checked }));
                      }}
                      size="md"
                      styles={{ label: { fontWeight: 600 } }}
                    />
                    {isSource && (
                      <Badge variant="light" color="indigo" size="sm" style={{ flexShrink: 0 }}>
                        This email
                      </Badge>
                    )}
                  </Group>
                </Paper>
              );
            })}
            <Group justify="space-between" gap="sm" wrap="wrap">
              <Text size="xs" c="dimmed" aria-live="polite">
                {changed.length === 0
                  ? 'No changes to save.'
                  : `${changed.length} unsaved ${changed.length === 1 ? 'change' : 'changes'}.`}
              </Text>
              <Button type="submit" loading={save.isPending} disabled={changed.length === 0}>
                Save
              </Button>
            </Group>
          </Stack>
        )}
        {transactional.length > 0 && (
          <Stack gap="xs">
            <Divider />
            <Title order={2} fz="lg">
              Always sent
            </Title>
            <Text size="sm" c="dimmed">
              Messages you need about your account. You cannot opt out of these.
            </Text>
            {transactional.map((category) => (
              <Group key={category.id} gap="sm" wrap="nowrap" align="flex-start">
                <ThemeIcon variant="light" color="gray" size="md" radius="xl" aria-hidden>
                  <IconShieldCheck size={16} />
                </ThemeIcon>
                <Stack gap={0}>
                  <Text size="sm" fw={600}>
                    {category.name}
                  </Text>
                  {category.description && (
                    <Text size="xs" c="dimmed">
                      {category.description}
                    </Text>
                  )}
                </Stack>
              </Group>
            ))}
          </Stack>
        )}
        {!data.unsubscribedFromAll && marketing.length > 0 && (
          <>
            <Divider />
            <Group justify="space-between" gap="sm" wrap="wrap">
              <Text size="sm" c="dimmed" style={{ flex: '1 1 220px' }}>
                Rather not hear from {data.accountName} at all?
              </Text>
              <Button
                variant="outline"
                color="red"
                onClick={confirmUnsubscribeAll}
                loading={unsubscribeAll.isPending}
              >
                Unsubscribe from all
              </Button>
            </Group>
          </>
        )}
      </Stack>
    </form>
  );
}

/** /public/subscription-preferences?token=…: a recipient chooses which kinds of email they get, without logging in. */
export function PreferenceCentrePage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token') ?? '';
  const isPreview = searchParams.get('preview') === '1';
  const preferences = usePreferences(token);

  let body: ReactNode;
  if (!token) body = isPreview ? null : <LinkProblem message={sendingMessages.linkInvalid} />;
  else
    body = (
      <ListBody
        query={preferences}
        loadingLabel="Loading your preferences"
        skeletonHeights={[220]}
        errorFallback={sendingMessages.preferencesLoadError}
        failure={(message) => (isPreview ? null : <LinkProblem message={message} />)}
      >
        {() => preferences.data && <PreferencesForm data={preferences.data} token={token} />}
      </ListBody>
    );

  const data = preferences.data;
  return (
    <PublicCard>
      <Stack gap="lg">
        <Group gap="sm" wrap="nowrap">
          {data ? <CompanyLogo companyName={data.accountName} logo={data.logo} size={48} /> : null}
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Title order={1} fz={{ base: 22, sm: 26 }}>
              Email preferences
            </Title>
            {data && (
              <Text size="sm" c="dimmed" style={{ wordBreak: 'break-word' }}>
                {data.site ? (
                  <Anchor
                    href={data.site.startsWith('http') ? data.site : `https://${data.site}`}
                    target="_blank"
                    rel="noopener noreferrer"
                    size="sm"
                    underline="always"
                  >
                    {data.accountName}
                  </Anchor>
                ) : (
                  data.accountName
                )}{' '}
                · for <strong>{data.person.email}</strong>
              </Text>
            )}
          </Stack>
        </Group>
        {isPreview && <PreviewNote>{previewText}</PreviewNote>}
        {body}
      </Stack>
    </PublicCard>
  );
}
