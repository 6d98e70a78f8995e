import type { PersonField, Segment } from '@herald/contracts';
import { Anchor, Autocomplete, Group, Select, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useEmail, useEmails, usePreview } from '../../emails/emails.api.ts';
import { PreviewFrame } from '../../emails/preview-frame.tsx';
import { usePersonFields } from '../../people/people.api.ts';
import { useEventNames, useSegments } from '../../segments/segments.api.ts';
import { useTags } from '../../tags/tags.api.ts';

interface PickerProps<T> {
  value: T | null;
  onChange: (value: T | null) => void;
  isReadOnly: boolean;
  label?: string;
  description?: string;
  error?: string | null;
}

/** Segments people can enter or leave: the account's own and the automatic ones, not Archived. */
export const pickableSegments = (segments: Segment[] | undefined) =>
  (segments ?? []).filter((s) => s.autoType !== 'archived');

export function SegmentPicker({
  value,
  onChange,
  isReadOnly,
  label = 'Segment',
  description,
  error,
}: PickerProps<number>) {
  const segments = useSegments();
  const data = pickableSegments(segments.data?.segments).map((s) => ({ value: String(s.id), label: s.name }));
  if (value !== null && !data.some((d) => d.value === String(value)))
    data.push({ value: String(value), label: `Segment ${value} (deleted)` });
  return (
    <Select
      label={label}
      description={description}
      placeholder={segments.isPending ? 'Loading segments…' : 'Choose a segment'}
      data={data}
      value={value === null ? null : String(value)}
      onChange={(v) => onChange(v ? Number(v) : null)}
      searchable
      readOnly={isReadOnly}
      nothingFoundMessage="No segment of that name"
      error={error ?? (segments.isError ? "We couldn't retrieve segments." : null)}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

export function TagPicker({
  value,
  onChange,
  isReadOnly,
  label = 'Tag',
  description,
  error,
}: PickerProps<string>) {
  const tags = useTags();
  return (
    <Autocomplete
      label={label}
      description={description}
      placeholder="Type or choose a tag"
      data={[...new Set((tags.data?.tags ?? []).map((t) => t.tag))]}
      value={value ?? ''}
      onChange={(v) => onChange(v || null)}
      readOnly={isReadOnly}
      maxLength={200}
      error={error}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

export function EventPicker({
  value,
  onChange,
  isReadOnly,
  label = 'Event name',
  description,
  error,
}: PickerProps<string>) {
  const events = useEventNames();
  return (
    <Autocomplete
      label={label}
      description={description}
      placeholder="signed_up"
      data={events.data?.names ?? []}
      value={value ?? ''}
      onChange={(v) => onChange(v || null)}
      readOnly={isReadOnly}
      maxLength={200}
      error={error}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

export function FieldPicker({
  value,
  onChange,
  isReadOnly,
  label = 'Field',
  description,
  error,
  types,
}: PickerProps<string> & { types?: PersonField['type'][] }) {
  const fields = usePersonFields();
  const data = (fields.data?.items ?? [])
    .filter((f) => !types || types.includes(f.type))
    .map((f) => ({ value: f.name, label: f.title || f.name }));
  return (
    <Select
      label={label}
      description={description}
      placeholder={fields.isPending ? 'Loading fields…' : 'Choose a field'}
      data={data}
      value={value}
      onChange={onChange}
      searchable
      readOnly={isReadOnly}
      nothingFoundMessage={types ? `No ${types.join(' or ')} field of that name` : 'No field of that name'}
      error={error}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

/** The account's emails to choose from, with the chosen one's subject, sender and a preview. */
export function EmailPicker({
  value,
  onChange,
  isReadOnly,
  label = 'Email',
  description,
  error,
  withPreview = true,
}: PickerProps<number> & { withPreview?: boolean }) {
  const emails = useEmails('false');
  const chosen = useEmail(withPreview && value !== null ? value : 0);
  const data = (emails.data?.emails ?? []).map((e) => ({ value: String(e.id), label: e.name }));
  if (value !== null && !data.some((d) => d.value === String(value)))
    data.push({ value: String(value), label: `Email ${value}` });
  const summary = emails.data?.emails.find((e) => e.id === value);
  // The preview is rendered as a sample person would get it (merge tags filled); a loading skeleton shows until then (PreviewFrame).
  const email = chosen.data?.email;
  const rendered = usePreview(
    email
      ? {
          id: email.id,
          name: email.name,
          subject: email.subject || ' ',
          html: email.html,
          fromName: email.fromName,
          fromEmail: email.fromEmail,
        }
      : null,
    null,
  );
  return (
    <Stack gap="xs">
      <Select
        label={label}
        description={
          description ??
          (summary
            ? `Subject: ${summary.subject || 'none'} · From: ${summary.fromEmail || 'nobody'}`
            : undefined)
        }
        placeholder={emails.isPending ? 'Loading emails…' : 'Choose an email'}
        data={data}
        value={value === null ? null : String(value)}
        onChange={(v) => onChange(v ? Number(v) : null)}
        searchable
        readOnly={isReadOnly}
        nothingFoundMessage="No email of that name"
        error={error ?? (emails.isError ? "We couldn't retrieve emails." : null)}
        comboboxProps={{ withinPortal: true }}
      />
      <Group gap="md">
        {value !== null && (
          <Anchor component={Link} to={`/emails/${value}`} size="sm" td="underline">
            Open the email
          </Anchor>
        )}
        {!isReadOnly && (
          <Anchor component={Link} to="/emails?new=1" size="sm" td="underline">
            Create a new email
          </Anchor>
        )}
      </Group>
      {emails.data && emails.data.emails.length === 0 && (
        <Text size="sm" c="dimmed">
          This account has no emails yet. Create one, then come back to choose it.
        </Text>
      )}
      {withPreview && value !== null && email && (
        <PreviewFrame
          html={rendered.data?.html}
          width="100%"
          height={280}
          title={`Preview of ${email.name}`}
          error={rendered.error}
        />
      )}
    </Stack>
  );
}
