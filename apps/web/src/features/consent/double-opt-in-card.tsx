import { consentMessages, type DoubleOptInSettings, type FormConsent } from '@herald/contracts';
import { Button, Card, Group, Select, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { IconMailCheck } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { ListBody } from '../../ui/list-page.tsx';
import { useEmails } from '../emails/emails.api.ts';
import { useTrackedForms } from '../site-tracking/site-tracking.api.ts';
import { useDoubleOptIn, useSaveDoubleOptIn } from './consent.api.ts';

const modeOptions = [
  { value: 'account', label: 'As the account' },
  { value: 'on', label: 'Ask to confirm' },
  { value: 'off', label: 'Do not ask' },
];
const modeOf = (form: FormConsent | undefined) =>
  form?.doubleOptIn === true ? 'on' : form?.doubleOptIn === false ? 'off' : 'account';

/**
 * Settings → Email → General: double opt-in (docs/senders-and-consent.md). On, people a site form or the API brings
 * in get a confirmation email and no marketing email until they confirm; each form seen on the site may differ and
 * carry its own consent text; the confirmation email is the built-in one or one of the account's emails.
 */
export function DoubleOptInCard({ canWrite }: { canWrite: boolean }) {
  const settings = useDoubleOptIn();
  const save = useSaveDoubleOptIn();
  const forms = useTrackedForms();
  const emails = useEmails('false');
  const [draft, setDraft] = useState<DoubleOptInSettings | null>(null);
  useEffect(() => {
    if (settings.data) setDraft(settings.data);
  }, [settings.data]);

  const setForm = (key: string, change: Partial<FormConsent>) =>
    setDraft((d) => {
      if (!d) return d;
      const next = { doubleOptIn: null, consentText: null, ...d.forms[key], ...change };
      return { ...d, forms: { ...d.forms, [key]: next } };
    });
  const submit = () => {
    if (!draft) return;
    save.mutate(draft, {
      onSuccess: () => notifySuccess('Double opt-in settings saved.'),
      onError: (error) => notifyError(error, 'Error while saving the double opt-in settings.'),
    });
  };
  const seenForms = forms.data?.events ?? [];

  return (
    <Card component="section" withBorder radius="md" padding="lg" aria-labelledby="double-opt-in-title">
      <Stack gap="sm">
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <IconMailCheck size={20} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
          <div>
            <Title order={2} fz="lg" id="double-opt-in-title">
              Double opt-in
            </Title>
            <Text size="sm" c="dimmed">
              People who sign up through a form on your site or the API get an email with a link to confirm,
              and no marketing email until they do. People you add or import are not asked.
            </Text>
          </div>
        </Group>
        <ListBody
          query={settings}
          loadingLabel="Loading the double opt-in settings"
          skeletonHeights={[36, 36]}
          errorFallback="Error while loading the double opt-in settings."
        >
          {draft && (
            <Stack gap="sm">
              <Switch
                label="Ask new people to confirm their subscription"
                checked={draft.doubleOptIn}
                onChange={(e) => setDraft({ ...draft, doubleOptIn: e.currentTarget.checked })}
                disabled={!canWrite}
              />
              <Select
                label="Confirmation email"
                description="Your own email must link to {{ person.confirmationUrl }}."
                data={[
                  { value: 'built-in', label: 'Built-in confirmation email' },
                  ...(emails.data?.emails ?? []).map((e) => ({ value: String(e.id), label: e.name })),
                ]}
                value={draft.confirmationEmailId === null ? 'built-in' : String(draft.confirmationEmailId)}
                onChange={(value) =>
                  setDraft({
                    ...draft,
                    confirmationEmailId: !value || value === 'built-in' ? null : Number(value),
                  })
                }
                allowDeselect={false}
                disabled={!canWrite}
                maw={420}
              />
              {seenForms.length > 0 && (
                <Table.ScrollContainer minWidth={560}>
                  <Table verticalSpacing="xs" aria-label="Double opt-in per form">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Form</Table.Th>
                        <Table.Th>Double opt-in</Table.Th>
                        <Table.Th>Consent text</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {seenForms.map((form) => {
                        const name = form.data.form.name ?? form.data.form.id ?? form.key;
                        return (
                          <Table.Tr key={form.key}>
                            <Table.Td>
                              <Text size="sm">{name}</Text>
                              <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
                                {form.url}
                              </Text>
                            </Table.Td>
                            <Table.Td>
                              <Select
                                aria-label={`Double opt-in for ${name}`}
                                data={modeOptions}
                                value={modeOf(draft.forms[form.key])}
                                onChange={(value) =>
                                  setForm(form.key, {
                                    doubleOptIn: value === 'on' ? true : value === 'off' ? false : null,
                                  })
                                }
                                allowDeselect={false}
                                disabled={!canWrite}
                                size="sm"
                              />
                            </Table.Td>
                            <Table.Td>
                              <TextInput
                                aria-label={`Consent text of ${name}`}
                                placeholder={consentMessages.defaultConsentText}
                                value={draft.forms[form.key]?.consentText ?? ''}
                                onChange={(e) =>
                                  setForm(form.key, { consentText: e.currentTarget.value || null })
                                }
                                disabled={!canWrite}
                                size="sm"
                              />
                            </Table.Td>
                          </Table.Tr>
                        );
                      })}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              )}
              {canWrite && (
                <Button style={{ alignSelf: 'flex-end' }} onClick={submit} loading={save.isPending}>
                  Save double opt-in
                </Button>
              )}
            </Stack>
          )}
        </ListBody>
      </Stack>
    </Card>
  );
}
