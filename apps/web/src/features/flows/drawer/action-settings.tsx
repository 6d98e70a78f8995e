import { hasScopes, type WaitConfig } from '@herald/contracts';
import {
  Group,
  NumberInput,
  Select,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { useAccount } from '../../account/account.api.ts';
import { usePersonFields } from '../../people/people.api.ts';
import { useTeamMembers } from '../../team/team.api.ts';
import { AbVariantsInput, defaultVariants } from './ab-variants-input.tsx';
import { EmailPicker, FieldPicker } from './pickers.tsx';
import { TagField, num, refId, str, type SettingsProps } from './settings-draft.tsx';
import { SlackStepForm } from './slack-step-form.tsx';
import { WaitEditor, defaultWait } from './wait-editor.tsx';
import { WebhookTester } from './webhook-tester.tsx';

type InputProps = Pick<SettingsProps, 'draft' | 'set' | 'isReadOnly'>;

function ChangeFieldInput({ draft, set, isReadOnly }: InputProps) {
  const fields = usePersonFields();
  const field = (fields.data?.items ?? []).find((f) => f.name === draft.field);
  const value = draft.value;
  return (
    <Stack gap="sm">
      <FieldPicker
        value={str(draft.field)}
        onChange={(v) => set('field', v)}
        isReadOnly={isReadOnly}
        label="Field to change"
      />
      {field?.type === 'boolean' ? (
        <Switch
          label="Set to yes"
          checked={value === true}
          disabled={isReadOnly}
          onChange={(event) => set('value', event.currentTarget.checked)}
        />
      ) : field?.type === 'number' ? (
        <NumberInput
          label="New value"
          value={typeof value === 'number' ? value : ''}
          readOnly={isReadOnly}
          onChange={(n) => set('value', n === '' ? null : Number(n))}
        />
      ) : (
        <TextInput
          label="New value"
          description="Leave empty to clear the field. Merge tags are not filled in here."
          value={
            typeof value === 'string'
              ? value
              : value === null || value === undefined
                ? ''
                : String(value as number)
          }
          readOnly={isReadOnly}
          maxLength={2000}
          onChange={(event) => set('value', event.currentTarget.value)}
        />
      )}
    </Stack>
  );
}

function NotificationInput({ draft, set, isReadOnly }: InputProps) {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const team = useTeamMembers({ enabled: accountData ? hasScopes(accountData, ['team:read']) : false });
  const own = account.data?.teamMember.email;
  const addresses = [
    ...new Set([
      ...(own ? [own] : []),
      ...(team.data?.teamMembers ?? []).filter((m) => !m.invitationPending).map((m) => m.email),
    ]),
  ];
  return (
    <Stack gap="sm">
      <TagsInput
        label="Send to"
        description="Addresses of your team members; press Enter after each."
        data={addresses}
        value={Array.isArray(draft.to) ? (draft.to as string[]) : []}
        onChange={(to) => set('to', to)}
        readOnly={isReadOnly}
        maxTags={20}
        comboboxProps={{ withinPortal: true }}
      />
      <TextInput
        label="Subject"
        value={str(draft.subject) ?? ''}
        maxLength={200}
        readOnly={isReadOnly}
        onChange={(event) => set('subject', event.currentTarget.value)}
      />
      <Textarea
        label="Message"
        description="Herald adds the person's email and a link to their profile."
        autosize
        minRows={3}
        maxRows={8}
        maxLength={5000}
        value={typeof draft.body === 'string' ? draft.body : ''}
        readOnly={isReadOnly}
        onChange={(event) => set('body', event.currentTarget.value)}
      />
    </Stack>
  );
}

/** The settings of an action step: what the flow does to a person. */
export function ActionSettings({ operationKey, stepId, draft, set, isReadOnly }: SettingsProps) {
  const inputProps = { draft, set, isReadOnly };
  switch (operationKey) {
    case '/add-tag':
      return <TagField label="Tag to add" {...inputProps} />;
    case '/remove-tag':
      return <TagField label="Tag to remove" {...inputProps} />;
    case '/send':
      return (
        <EmailPicker
          value={refId(draft.email)}
          onChange={(id) => set('email', id === null ? undefined : { id })}
          isReadOnly={isReadOnly}
        />
      );
    case '/delay':
      return (
        <Group gap="xs">
          <NumberInput
            label="Wait"
            min={0}
            w={120}
            value={num(draft.amount, 1)}
            readOnly={isReadOnly}
            onChange={(n) => set('amount', Math.max(0, Math.trunc(Number(n) || 0)))}
          />
          <Select
            label="Unit"
            w={130}
            allowDeselect={false}
            readOnly={isReadOnly}
            value={str(draft.unit) ?? 'days'}
            onChange={(v) => set('unit', v)}
            data={['minutes', 'hours', 'days', 'weeks']}
            comboboxProps={{ withinPortal: true }}
          />
        </Group>
      );
    case '/delay-v2':
      return (
        <WaitEditor
          value={(draft.wait as WaitConfig | undefined) ?? defaultWait('duration')}
          onChange={(wait) => set('wait', wait)}
          isReadOnly={isReadOnly}
        />
      );
    case '/change-field':
      return <ChangeFieldInput {...inputProps} />;
    case '/ab-test':
      return (
        <AbVariantsInput
          value={
            Array.isArray(draft.variants)
              ? (draft.variants as { name: string; weight: number }[])
              : defaultVariants()
          }
          onChange={(variants) => set('variants', variants)}
          isReadOnly={isReadOnly}
        />
      );
    case '/email-notification':
      return <NotificationInput {...inputProps} />;
    case '/send-webhook':
      return (
        <Stack gap="sm">
          <TextInput
            label="URL"
            description="Herald POSTs the person as JSON. Private, loopback and link-local addresses are refused."
            placeholder="https://example.com/hooks/herald"
            maxLength={2000}
            value={str(draft.url) ?? ''}
            readOnly={isReadOnly}
            onChange={(event) => set('url', event.currentTarget.value)}
          />
          {!isReadOnly && stepId !== null && <WebhookTester stepId={stepId} url={str(draft.url) ?? ''} />}
        </Stack>
      );
    case '/slack-notification':
      return (
        <SlackStepForm
          text={str(draft.text) ?? ''}
          onChange={(text) => set('text', text)}
          isReadOnly={isReadOnly}
        />
      );
    case '/lead-score':
      return (
        <NumberInput
          label="Change the score by"
          description="Negative to lower it."
          min={-1000}
          max={1000}
          value={num(draft.change, 10)}
          readOnly={isReadOnly}
          onChange={(n) => set('change', Math.trunc(Number(n) || 0))}
        />
      );
    case '/archive-person':
      return (
        <Text size="sm">
          The person is archived: they leave every flow and get no more email. You can restore them from the
          Archived segment.
        </Text>
      );
    case '/end-flow':
      return <Text size="sm">The person leaves this flow here.</Text>;
    default:
      return null;
  }
}
