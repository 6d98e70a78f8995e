import '@mantine/dates/styles.css';
import {
  decodeInputFields,
  emailActivities,
  encodeInputFields,
  flowLimits,
  flowMessages,
  hasScopes,
  isOperationKey,
  operationConfigs,
  urlMatches,
  type Condition,
  type InputFields,
  type WaitConfig,
} from '@herald/contracts';
import { Alert, Button, Group, NumberInput, Select, Stack, Switch, TagsInput, Text, TextInput, Textarea } from '@mantine/core';
import { DateTimePicker, TimeInput } from '@mantine/dates';
import { IconAlertTriangle, IconCalendarEvent, IconDeviceFloppy } from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';
import { useAccount } from '../../account/account.api.ts';
import { usePersonFields } from '../../people/people.api.ts';
import { useTeamMembers } from '../../team/team.api.ts';
import { ConditionInput } from '../../segments/condition-input.tsx';
import { newCondition } from '../../segments/condition-text.ts';
import { useConditionChoices } from '../../segments/use-condition-choices.ts';
import { useSegments } from '../../segments/segments.api.ts';
import { AbVariantsInput, defaultVariants } from './ab-variants-input.tsx';
import { EmailPicker, EventPicker, FieldPicker, SegmentPicker, TagPicker } from './pickers.tsx';
import { WaitEditor, defaultWait, toIso, toWallClock } from './wait-editor.tsx';
import { WebhookTester } from './webhook-tester.tsx';
import { SlackStepForm } from './slack-step-form.tsx';

type Draft = Record<string, unknown>;

const refId = (value: unknown): number | null => (value && typeof value === 'object' && 'id' in value && typeof value.id === 'number' ? value.id : null);
const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const num = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);

/** Settings a new step starts with, where an empty one would be no use (a wait, an A/B test, a filter's condition). */
export function defaultSettings(operationKey: string): InputFields | undefined {
  switch (operationKey) {
    case '/delay-v2':
      return encodeInputFields({ wait: defaultWait('duration') });
    case '/ab-test':
      return encodeInputFields({ variants: defaultVariants() });
    case '/dateFieldTrigger':
      return encodeInputFields({ offsetDays: 0, time: '09:00' });
    case '/annualTrigger':
      return encodeInputFields({ time: '09:00' });
    case '/page-visited-trigger':
      return encodeInputFields({ match: 'contains' });
    case '/email-trigger':
      return encodeInputFields({ activity: 'opened' });
    default:
      return undefined;
  }
}

/** A filter's condition, created on first edit with the segments editor's defaults. */
const filterConditionType: Record<string, Condition['type']> = { '/check-email-activity': 'emailActivity', '/check-field': 'field', '/visited-page': 'pageVisited' };

function FilterConditionInput({ operationKey, draft, set }: { operationKey: string; draft: Draft; set: (key: string, value: unknown) => void }) {
  const segments = useSegments();
  const choices = useConditionChoices(true, segments.data?.segments, undefined);
  const type = filterConditionType[operationKey]!;
  const condition = (draft.condition as Condition | undefined) ?? newCondition(type, undefined);
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        People who match go down the “yes” branch; the others down “no”.
      </Text>
      <ConditionInput condition={condition} choices={choices} onChange={(next) => set('condition', next)} />
    </Stack>
  );
}

function ChangeFieldInput({ draft, set, isReadOnly }: { draft: Draft; set: (key: string, value: unknown) => void; isReadOnly: boolean }) {
  const fields = usePersonFields();
  const field = (fields.data?.items ?? []).find((f) => f.name === draft.field);
  const value = draft.value;
  return (
    <Stack gap="sm">
      <FieldPicker value={str(draft.field)} onChange={(v) => set('field', v)} isReadOnly={isReadOnly} label="Field to change" />
      {field?.type === 'boolean' ? (
        <Switch label="Set to yes" checked={value === true} disabled={isReadOnly} onChange={(event) => set('value', event.currentTarget.checked)} />
      ) : field?.type === 'number' ? (
        <NumberInput label="New value" value={typeof value === 'number' ? value : ''} readOnly={isReadOnly} onChange={(n) => set('value', n === '' ? null : Number(n))} />
      ) : (
        <TextInput
          label="New value"
          description="Leave empty to clear the field. Merge tags are not filled in here."
          value={typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value as number)}
          readOnly={isReadOnly}
          maxLength={2000}
          onChange={(event) => set('value', event.currentTarget.value)}
        />
      )}
    </Stack>
  );
}

function NotificationInput({ draft, set, isReadOnly }: { draft: Draft; set: (key: string, value: unknown) => void; isReadOnly: boolean }) {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const team = useTeamMembers({ enabled: accountData ? hasScopes(accountData, ['team:read']) : false });
  const own = account.data?.teamMember.email;
  const addresses = [...new Set([...(own ? [own] : []), ...(team.data?.teamMembers ?? []).filter((m) => !m.invitationPending).map((m) => m.email)])];
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
      <TextInput label="Subject" value={str(draft.subject) ?? ''} maxLength={200} readOnly={isReadOnly} onChange={(event) => set('subject', event.currentTarget.value)} />
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

/** The settings of one operation, as form fields over the decoded inputFields. */
function SettingsFields({ operationKey, stepId, draft, set, isReadOnly, outputFields }: { operationKey: string; stepId: number | null; draft: Draft; set: (key: string, value: unknown) => void; isReadOnly: boolean; outputFields: Record<string, unknown> | null }) {
  const segmentRef = (label: string, description?: string) => (
    <SegmentPicker label={label} description={description} value={refId(draft.segment)} onChange={(id) => set('segment', id === null ? undefined : { id })} isReadOnly={isReadOnly} />
  );
  const tag = (label: string) => <TagPicker label={label} value={str(draft.tag)} onChange={(v) => set('tag', v ?? undefined)} isReadOnly={isReadOnly} />;
  const clock = (label: string) => <TimeInput label={label} description="In each person's time zone." w={160} value={str(draft.time) ?? ''} readOnly={isReadOnly} onChange={(event) => set('time', event.currentTarget.value)} />;
  const form = (description: string) => <TextInput label="Form" description={description} placeholder="Any form" maxLength={500} value={str(draft.form) ?? ''} readOnly={isReadOnly} onChange={(event) => set('form', event.currentTarget.value || undefined)} />;

  switch (operationKey) {
    case '/entered-segment':
      return segmentRef('Segment people enter', 'People start the flow when they join this segment.');
    case '/left-segment':
      return segmentRef('Segment people leave', 'People start the flow when they leave this segment.');
    case '/in-segment':
      return segmentRef('Is the person in', 'In the segment: “yes” branch; otherwise “no”.');
    case '/added-tag':
      return tag('When this tag is added');
    case '/removed-tag':
      return tag('When this tag is removed');
    case '/add-tag':
      return tag('Tag to add');
    case '/remove-tag':
      return tag('Tag to remove');
    case '/has-tag':
      return tag('Has the tag');
    case '/event':
      return <EventPicker value={str(draft.name)} onChange={(v) => set('name', v ?? undefined)} isReadOnly={isReadOnly} description="People start the flow each time this event arrives for them." />;
    case '/email-trigger':
      return (
        <Stack gap="sm">
          <Select label="When a person has" allowDeselect={false} readOnly={isReadOnly} value={str(draft.activity)} onChange={(v) => set('activity', v)} data={emailActivities.map((a) => ({ value: a, label: a }))} comboboxProps={{ withinPortal: true }} />
          <EmailPicker label="Email (optional)" description="Leave empty for any email." withPreview={false} value={refId(draft.email)} onChange={(id) => set('email', id === null ? undefined : { id })} isReadOnly={isReadOnly} />
        </Stack>
      );
    case '/dateFieldTrigger':
      return (
        <Stack gap="sm">
          <FieldPicker types={['date']} label="Date field" value={str(draft.field)} onChange={(v) => set('field', v ?? undefined)} isReadOnly={isReadOnly} />
          <NumberInput label="Days from the date" description="Negative for before, positive for after, 0 on the day." min={-365} max={365} value={num(draft.offsetDays, 0)} readOnly={isReadOnly} onChange={(n) => set('offsetDays', Math.trunc(Number(n) || 0))} />
          {clock('At')}
        </Stack>
      );
    case '/annualTrigger':
      return (
        <Stack gap="sm">
          <FieldPicker types={['date']} label="Date field" description="Every year on this date (a birthday, a sign-up anniversary)." value={str(draft.field)} onChange={(v) => set('field', v ?? undefined)} isReadOnly={isReadOnly} />
          {clock('At')}
        </Stack>
      );
    case '/time':
      return (
        <Stack gap="sm">
          <DateTimePicker
            label="Date and time"
            description="In your browser's time zone. Everyone passes it once."
            valueFormat="MMM D, YYYY HH:mm"
            leftSection={<IconCalendarEvent size={16} />}
            minDate={new Date().toISOString().slice(0, 10)}
            readOnly={isReadOnly}
            value={toWallClock(str(draft.at) ?? undefined)}
            onChange={(picked) => set('at', toIso(picked) ?? undefined)}
            popoverProps={{ withinPortal: true }}
          />
          {segmentRef('Only people in (optional)', 'Leave empty for everyone.')}
        </Stack>
      );
    case '/page-visited-trigger':
      return (
        <Stack gap="sm">
          <Select label="URL match" allowDeselect={false} readOnly={isReadOnly} value={str(draft.match) ?? 'contains'} onChange={(v) => set('match', v)} data={urlMatches.map((m) => ({ value: m, label: m === 'startsWith' ? 'starts with' : m === 'pattern' ? 'is like (* wildcard)' : m }))} comboboxProps={{ withinPortal: true }} />
          <TextInput label="URL" placeholder="/pricing" maxLength={2000} value={str(draft.url) ?? ''} readOnly={isReadOnly} onChange={(event) => set('url', event.currentTarget.value)} />
        </Stack>
      );
    case '/site-form-submitted':
      return form('The form key from site tracking; empty for any form on your site.');
    case '/submitted-form':
      return form('The form name sent with the “form submitted” event; empty for any.');
    case '/webhook-trigger': {
      const url = str(outputFields?.url);
      return url ? <TextInput label="Call this URL" description="POST a JSON body with an email; the query string carries the signature." value={url} readOnly /> : <Text size="sm">Save the step to get its signed URL.</Text>;
    }
    case '/send':
      return <EmailPicker value={refId(draft.email)} onChange={(id) => set('email', id === null ? undefined : { id })} isReadOnly={isReadOnly} />;
    case '/delay':
      return (
        <Group gap="xs">
          <NumberInput label="Wait" min={0} w={120} value={num(draft.amount, 1)} readOnly={isReadOnly} onChange={(n) => set('amount', Math.max(0, Math.trunc(Number(n) || 0)))} />
          <Select label="Unit" w={130} allowDeselect={false} readOnly={isReadOnly} value={str(draft.unit) ?? 'days'} onChange={(v) => set('unit', v)} data={['minutes', 'hours', 'days', 'weeks']} comboboxProps={{ withinPortal: true }} />
        </Group>
      );
    case '/delay-v2':
      return <WaitEditor value={(draft.wait as WaitConfig | undefined) ?? defaultWait('duration')} onChange={(wait) => set('wait', wait)} isReadOnly={isReadOnly} />;
    case '/change-field':
      return <ChangeFieldInput draft={draft} set={set} isReadOnly={isReadOnly} />;
    case '/ab-test':
      return <AbVariantsInput value={Array.isArray(draft.variants) ? (draft.variants as { name: string; weight: number }[]) : defaultVariants()} onChange={(variants) => set('variants', variants)} isReadOnly={isReadOnly} />;
    case '/email-notification':
      return <NotificationInput draft={draft} set={set} isReadOnly={isReadOnly} />;
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
      return <SlackStepForm text={str(draft.text) ?? ''} onChange={(text) => set('text', text)} isReadOnly={isReadOnly} />;
    case '/lead-score':
      return <NumberInput label="Change the score by" description="Negative to lower it." min={-1000} max={1000} value={num(draft.change, 10)} readOnly={isReadOnly} onChange={(n) => set('change', Math.trunc(Number(n) || 0))} />;
    case '/archive-person':
      return <Text size="sm">The person is archived: they leave every flow and get no more email. You can restore them from the Archived segment.</Text>;
    case '/end-flow':
      return <Text size="sm">The person leaves this flow here.</Text>;
    case '/check-email-activity':
    case '/check-field':
    case '/visited-page':
      return isReadOnly ? <Text size="sm">Only people who can edit flows can change this filter.</Text> : <FilterConditionInput operationKey={operationKey} draft={draft} set={set} />;
    default:
      return null;
  }
}

/** Operations that keep nothing to set up. */
const hasNoSettings = (operationKey: string) => ['/archive-person', '/end-flow', '/webhook-trigger'].includes(operationKey);

interface StepFormProps {
  operationKey: string;
  /** The saved step's id; null while it is being created. */
  stepId: number | null;
  inputFields: InputFields;
  outputFields: Record<string, unknown> | null;
  isReadOnly: boolean;
  isSaving: boolean;
  onSave: (inputFields: InputFields) => void;
  /** Shown under the fields (the step's own problem, from the server). */
  problem: string | null;
  footer?: ReactNode;
}

/**
 * The configuration form of one step: fields for its operation over the decoded settings, checked against the
 * operation's schema before saving (the same schema the server checks), so a mistake is named beside the form.
 */
export function StepForm({ operationKey, stepId, inputFields, outputFields, isReadOnly, isSaving, onSave, problem, footer }: StepFormProps) {
  const [draft, setDraft] = useState<Draft>(() => {
    const decoded = decodeInputFields(inputFields);
    if (operationKey === '/ab-test' && !Array.isArray(decoded.variants)) decoded.variants = defaultVariants();
    if (operationKey === '/delay-v2' && !decoded.wait) decoded.wait = defaultWait('duration');
    const conditionType = filterConditionType[operationKey];
    if (conditionType && !decoded.condition) decoded.condition = newCondition(conditionType, undefined);
    return decoded;
  });
  const [error, setError] = useState<string | null>(null);
  const set = (key: string, value: unknown) => {
    setError(null);
    setDraft((current) => ({ ...current, [key]: value }));
  };

  if (!isOperationKey(operationKey)) {
    return (
      <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title={flowMessages.unknownStep}>
        Herald does not know the operation {operationKey}. Delete this step and add one from the catalogue.
      </Alert>
    );
  }

  const save = () => {
    const parsed = operationConfigs[operationKey].safeParse(draft);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join(' › ')}: ` : '';
      setError(`${where}${issue?.message ?? 'Check the settings.'}`);
      return;
    }
    onSave(encodeInputFields(parsed.data as Record<string, unknown>));
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <Stack gap="md">
        <SettingsFields operationKey={operationKey} stepId={stepId} draft={draft} set={set} isReadOnly={isReadOnly} outputFields={outputFields} />
        {problem && (
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />}>
            {problem}
          </Alert>
        )}
        {error && (
          <Alert color="red" variant="light" role="alert" icon={<IconAlertTriangle size={18} />}>
            {error}
          </Alert>
        )}
        <Group justify="space-between" gap="xs">
          {!isReadOnly && !hasNoSettings(operationKey) ? (
            <Button type="submit" leftSection={<IconDeviceFloppy size={16} />} loading={isSaving}>
              Save step
            </Button>
          ) : (
            <span />
          )}
          {footer}
        </Group>
        {operationKey === '/ab-test' && (
          <Text size="xs" c="dimmed">
            At most {flowLimits.maxAbVariants} variants; each variant is a branch to link from.
          </Text>
        )}
      </Stack>
    </form>
  );
}
