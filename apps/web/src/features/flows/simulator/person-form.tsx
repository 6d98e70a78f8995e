import { simulateLimits } from '@herald/contracts';
import {
  ActionIcon,
  Autocomplete,
  Button,
  Group,
  Select,
  Stack,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useMemo } from 'react';
import { usePersonFields } from '../../people/people.api.ts';

/** A made-up person as the form holds it: field rows, tags, a time zone, and events with local times. */
export interface DraftPerson {
  fields: { name: string; value: string }[];
  tags: string[];
  timezone: string;
  events: { name: string; at: string; properties: string }[];
}

export const emptyPerson: DraftPerson = {
  fields: [{ name: 'firstName', value: '' }],
  tags: [],
  timezone: '',
  events: [],
};

function timeZones(): string[] {
  try {
    return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  } catch {
    return ['UTC'];
  }
}

/** The value of a field row as the API takes it: a number or true/false for fields of those types, else text. */
export function typedValue(value: string, type: string | undefined): string | number | boolean | null {
  if (value.trim() === '') return null;
  if (type === 'number' && Number.isFinite(Number(value))) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

export function useFieldTypes(): Map<string, string> {
  const fields = usePersonFields();
  return useMemo(() => new Map((fields.data?.items ?? []).map((f) => [f.name, f.type])), [fields.data]);
}

/** The made-up person's editor. */
export function PersonForm({
  value,
  onChange,
}: {
  value: DraftPerson;
  onChange: (next: DraftPerson) => void;
}) {
  const fields = usePersonFields();
  const names = useMemo(
    () =>
      (fields.data?.items ?? [])
        .map((f) => f.name)
        .filter((n) => !['tags', 'createdAt', 'updatedAt', 'unsubscribed', 'unsubscribeReason'].includes(n)),
    [fields.data],
  );
  const zones = useMemo(timeZones, []);
  const setField = (index: number, patch: Partial<DraftPerson['fields'][number]>) =>
    onChange({ ...value, fields: value.fields.map((f, i) => (i === index ? { ...f, ...patch } : f)) });
  const setEvent = (index: number, patch: Partial<DraftPerson['events'][number]>) =>
    onChange({ ...value, events: value.events.map((e, i) => (i === index ? { ...e, ...patch } : e)) });

  return (
    <Stack gap="sm">
      <Stack gap={6}>
        <Text size="sm" fw={500}>
          Fields
        </Text>
        {value.fields.map((field, index) => (
          <Group key={index} gap="xs" wrap="nowrap" align="flex-end">
            <Autocomplete
              size="sm"
              aria-label={`Field ${index + 1} name`}
              placeholder="Field"
              data={names}
              value={field.name}
              onChange={(name) => setField(index, { name })}
              style={{ flex: 1 }}
            />
            <TextInput
              size="sm"
              aria-label={`Field ${index + 1} value`}
              placeholder="Value"
              value={field.value}
              onChange={(e) => setField(index, { value: e.currentTarget.value })}
              style={{ flex: 1 }}
            />
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={`Remove field ${index + 1}`}
              onClick={() => onChange({ ...value, fields: value.fields.filter((_, i) => i !== index) })}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        ))}
        <Button
          variant="subtle"
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => onChange({ ...value, fields: [...value.fields, { name: '', value: '' }] })}
          style={{ alignSelf: 'flex-start' }}
        >
          Add field
        </Button>
      </Stack>
      <TagsInput
        label="Tags"
        placeholder="Type a tag and press Enter"
        value={value.tags}
        onChange={(tags) => onChange({ ...value, tags })}
      />
      <Select
        label="Time zone"
        description="Waits and weekday windows read the clock in it; empty: the account’s."
        placeholder="The account’s time zone"
        data={zones}
        searchable
        clearable
        value={value.timezone || null}
        onChange={(zone) => onChange({ ...value, timezone: zone ?? '' })}
      />
      <Stack gap={6}>
        <Text size="sm" fw={500}>
          Events
        </Text>
        <Text size="xs" c="dimmed">
          Each event happens at its time on the simulated clock (at most {simulateLimits.maxEvents}); filters
          and the goal see it from then on.
        </Text>
        {value.events.map((event, index) => (
          <Group key={index} gap="xs" wrap="wrap" align="flex-end">
            <TextInput
              aria-label={`Event ${index + 1} name`}
              placeholder="Event name"
              value={event.name}
              onChange={(e) => setEvent(index, { name: e.currentTarget.value })}
              style={{ flex: '1 1 140px' }}
            />
            <TextInput
              aria-label={`Event ${index + 1} time`}
              type="datetime-local"
              value={event.at}
              onChange={(e) => setEvent(index, { at: e.currentTarget.value })}
              style={{ flex: '1 1 180px' }}
            />
            <TextInput
              aria-label={`Event ${index + 1} properties (JSON)`}
              placeholder='{"amount": 30}'
              value={event.properties}
              onChange={(e) => setEvent(index, { properties: e.currentTarget.value })}
              style={{ flex: '1 1 140px' }}
            />
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={`Remove event ${index + 1}`}
              onClick={() => onChange({ ...value, events: value.events.filter((_, i) => i !== index) })}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        ))}
        <Button
          variant="subtle"
          size="xs"
          leftSection={<IconPlus size={14} />}
          disabled={value.events.length >= simulateLimits.maxEvents}
          onClick={() =>
            onChange({ ...value, events: [...value.events, { name: '', at: '', properties: '' }] })
          }
          style={{ alignSelf: 'flex-start' }}
        >
          Add event
        </Button>
      </Stack>
    </Stack>
  );
}
