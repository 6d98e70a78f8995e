import { Account, messages, type TrackingUnknownTraits, type UpdateAccountBody } from '@herald/contracts';
import { Code, Group, SegmentedControl, Stack, Tabs, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { CopyButton } from '../../ui/copy-button.tsx';
import { Section } from './account-section.tsx';
import { accountKey } from './account.api.ts';
import { trackingApiSnippets } from './tracking-api-snippets.ts';

const settingFailure = "Couldn't save what happens to unknown traits.";

/** The account page's "Segment and RudderStack" section: the SDK snippets and the unknown-traits setting. */
export function TrackingApiSection({ account, canWrite }: { account: Account; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const [isSaving, setIsSaving] = useState(false);
  const snippets = trackingApiSnippets(window.location.origin, account.writeKey);

  const onChange = async (trackingUnknownTraits: TrackingUnknownTraits) => {
    setIsSaving(true);
    try {
      const saved = await api.patch('/accounts/me', { trackingUnknownTraits } satisfies UpdateAccountBody, {
        schema: Account,
      });
      queryClient.setQueryData<Account>(accountKey, saved);
      notifySuccess(messages.settingsSaved);
    } catch (error) {
      notifyError(error, settingFailure);
    } finally {
      setIsSaving(false);
    }
  };

  return (
    <Section
      title="Segment and RudderStack"
      description="Already sending events through Segment's or RudderStack's libraries? Point them at Herald with this account's write key: people, traits, events and page views appear here, nothing else to write."
    >
      <Tabs defaultValue={snippets[0]!.id} keepMounted={false}>
        <Tabs.List>
          {snippets.map((s) => (
            <Tabs.Tab key={s.id} value={s.id}>
              {s.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {snippets.map((s) => (
          <Tabs.Panel key={s.id} value={s.id} pt="sm">
            <Stack gap="xs">
              <Group justify="space-between" wrap="nowrap">
                <Code>{s.install}</Code>
                <CopyButton value={s.install} label="Copy install command" />
              </Group>
              <Group justify="space-between" align="flex-start" wrap="nowrap">
                <Code
                  block
                  fz="xs"
                  tabIndex={0}
                  role="region"
                  aria-label={`${s.label} example`}
                  data-testid={`tracking-snippet-${s.id}`}
                  style={{ whiteSpace: 'pre', overflowX: 'auto', flex: 1 }}
                >
                  {s.code}
                </Code>
                <CopyButton value={s.code} label={`Copy the ${s.label} example`} />
              </Group>
            </Stack>
          </Tabs.Panel>
        ))}
      </Tabs>
      <Stack gap={4}>
        <Text size="sm" fw={500} id="unknown-traits-label">
          Traits that match no field
        </Text>
        <SegmentedControl
          aria-labelledby="unknown-traits-label"
          value={account.trackingUnknownTraits}
          disabled={!canWrite || isSaving}
          onChange={(value) => void onChange(value as TrackingUnknownTraits)}
          data={[
            { value: 'drop', label: 'Ignore them' },
            { value: 'field', label: 'Add them as custom fields' },
          ]}
        />
        <Text size="xs" c="dimmed">
          Email, name, first and last name, phone, company and website fill the person&apos;s fields; a trait
          named like one of your custom fields fills it.
        </Text>
      </Stack>
    </Section>
  );
}
