import { emailActivities, urlMatches } from '@herald/contracts';
import { NumberInput, Select, Stack, Text, TextInput } from '@mantine/core';
import { DateTimePicker, TimeInput } from '@mantine/dates';
import { IconCalendarEvent } from '@tabler/icons-react';
import { EmailPicker, EventPicker, FieldPicker } from './pickers.tsx';
import { SegmentField, TagField, num, refId, str, type SettingsProps } from './settings-draft.tsx';
import { toIso, toWallClock } from './wait-editor.tsx';

/** The settings of a trigger step: what starts the flow for a person. */
export function TriggerSettings({ operationKey, draft, set, isReadOnly, outputFields }: SettingsProps) {
  const fieldProps = { draft, set, isReadOnly };
  const clock = (label: string) => (
    <TimeInput
      label={label}
      description="In each person's time zone."
      w={160}
      value={str(draft.time) ?? ''}
      readOnly={isReadOnly}
      onChange={(event) => set('time', event.currentTarget.value)}
    />
  );
  const form = (description: string) => (
    <TextInput
      label="Form"
      description={description}
      placeholder="Any form"
      maxLength={500}
      value={str(draft.form) ?? ''}
      readOnly={isReadOnly}
      onChange={(event) => set('form', event.currentTarget.value || undefined)}
    />
  );

  switch (operationKey) {
    case '/entered-segment':
      return (
        <SegmentField
          label="Segment people enter"
          description="People start the flow when they join this segment."
          {...fieldProps}
        />
      );
    case '/left-segment':
      return (
        <SegmentField
          label="Segment people leave"
          description="People start the flow when they leave this segment."
          {...fieldProps}
        />
      );
    case '/added-tag':
      return <TagField label="When this tag is added" {...fieldProps} />;
    case '/removed-tag':
      return <TagField label="When this tag is removed" {...fieldProps} />;
    case '/event':
      return (
        <EventPicker
          value={str(draft.name)}
          onChange={(v) => set('name', v ?? undefined)}
          isReadOnly={isReadOnly}
          description="People start the flow each time this event arrives for them."
        />
      );
    case '/email-trigger':
      return (
        <Stack gap="sm">
          <Select
            label="When a person has"
            allowDeselect={false}
            readOnly={isReadOnly}
            value={str(draft.activity)}
            onChange={(v) => set('activity', v)}
            data={emailActivities.map((a) => ({ value: a, label: a }))}
            comboboxProps={{ withinPortal: true }}
          />
          <EmailPicker
            label="Email (optional)"
            description="Leave empty for any email."
            withPreview={false}
            value={refId(draft.email)}
            onChange={(id) => set('email', id === null ? undefined : { id })}
            isReadOnly={isReadOnly}
          />
        </Stack>
      );
    case '/dateFieldTrigger':
      return (
        <Stack gap="sm">
          <FieldPicker
            types={['date']}
            label="Date field"
            value={str(draft.field)}
            onChange={(v) => set('field', v ?? undefined)}
            isReadOnly={isReadOnly}
          />
          <NumberInput
            label="Days from the date"
            description="Negative for before, positive for after, 0 on the day."
            min={-365}
            max={365}
            value={num(draft.offsetDays, 0)}
            readOnly={isReadOnly}
            onChange={(n) => set('offsetDays', Math.trunc(Number(n) || 0))}
          />
          {clock('At')}
        </Stack>
      );
    case '/annualTrigger':
      return (
        <Stack gap="sm">
          <FieldPicker
            types={['date']}
            label="Date field"
            description="Every year on this date (a birthday, a sign-up anniversary)."
            value={str(draft.field)}
            onChange={(v) => set('field', v ?? undefined)}
            isReadOnly={isReadOnly}
          />
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
          <SegmentField
            label="Only people in (optional)"
            description="Leave empty for everyone."
            {...fieldProps}
          />
        </Stack>
      );
    case '/page-visited-trigger':
      return (
        <Stack gap="sm">
          <Select
            label="URL match"
            allowDeselect={false}
            readOnly={isReadOnly}
            value={str(draft.match) ?? 'contains'}
            onChange={(v) => set('match', v)}
            data={urlMatches.map((m) => ({
              value: m,
              label: m === 'startsWith' ? 'starts with' : m === 'pattern' ? 'is like (* wildcard)' : m,
            }))}
            comboboxProps={{ withinPortal: true }}
          />
          <TextInput
            label="URL"
            placeholder="/pricing"
            maxLength={2000}
            value={str(draft.url) ?? ''}
            readOnly={isReadOnly}
            onChange={(event) => set('url', event.currentTarget.value)}
          />
        </Stack>
      );
    case '/site-form-submitted':
      return form('The form key from site tracking; empty for any form on your site.');
    case '/submitted-form':
      return form('The form name sent with the “form submitted” event; empty for any.');
    case '/webhook-trigger': {
      const url = str(outputFields?.url);
      return url ? (
        <TextInput
          label="Call this URL"
          description="POST a JSON body with an email; the query string carries the signature."
          value={url}
          readOnly
        />
      ) : (
        <Text size="sm">Save the step to get its signed URL.</Text>
      );
    }
    default:
      return null;
  }
}
