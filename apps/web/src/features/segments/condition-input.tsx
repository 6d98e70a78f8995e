import { emailActivities, type Condition, type ConditionOf } from '@herald/contracts';
import {
  ActionIcon,
  Autocomplete,
  Button,
  Group,
  NumberInput,
  Select,
  Stack,
  TextInput,
} from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import type { ConditionChoices } from './condition-choices.ts';
import { DateInput, today } from './date-input.tsx';
import { FieldConditionInput } from './field-condition-input.tsx';
import { WindowInput } from './window-input.tsx';

export type { ConditionChoices } from './condition-choices.ts';

const performedData = [
  { value: 'yes', label: 'did' },
  { value: 'no', label: 'did not' },
];

function Performed({ value, onChange }: { value: boolean; onChange: (v: boolean) => void }) {
  return (
    <Select
      aria-label="Did or did not"
      w={110}
      allowDeselect={false}
      data={performedData}
      value={value ? 'yes' : 'no'}
      onChange={(v) => onChange(v === 'yes')}
    />
  );
}

function EventInput({
  condition,
  choices,
  onChange,
}: {
  condition: ConditionOf<'event'>;
  choices: ConditionChoices;
  onChange: (c: Condition) => void;
}) {
  const setProperty = (index: number, patch: Partial<ConditionOf<'event'>['properties'][number]>) =>
    onChange({
      ...condition,
      properties: condition.properties.map((p, i) => (i === index ? { ...p, ...patch } : p)),
    });
  return (
    <Stack gap="xs">
      <Group gap="xs" wrap="wrap">
        <Autocomplete
          aria-label="Event name"
          placeholder="Event name"
          w={220}
          maxLength={200}
          data={choices.eventNames}
          value={condition.name}
          onChange={(name) => onChange({ ...condition, name })}
        />
        <Select
          aria-label="How often"
          w={120}
          allowDeselect={false}
          data={[
            { value: 'atLeast', label: 'at least' },
            { value: 'atMost', label: 'at most' },
            { value: 'exactly', label: 'exactly' },
          ]}
          value={condition.count.operator}
          onChange={(operator) =>
            onChange({
              ...condition,
              count: { ...condition.count, operator: (operator ?? 'atLeast') as 'atLeast' },
            })
          }
        />
        <NumberInput
          aria-label="Times"
          w={100}
          min={0}
          max={1_000_000}
          suffix={condition.count.value === 1 ? ' time' : ' times'}
          value={condition.count.value}
          onChange={(n) =>
            onChange({ ...condition, count: { ...condition.count, value: Math.max(0, Number(n) || 0) } })
          }
        />
        <WindowInput value={condition.window} onChange={(window) => onChange({ ...condition, window })} />
      </Group>
      {condition.properties.map((p, index) => (
        <Group key={index} gap="xs" wrap="wrap" pl="md">
          <TextInput
            aria-label="Property"
            placeholder="property"
            w={150}
            maxLength={100}
            value={p.key}
            onChange={(e) => setProperty(index, { key: e.currentTarget.value })}
          />
          <Select
            aria-label="Property operator"
            w={140}
            allowDeselect={false}
            data={[
              { value: 'equals', label: 'is' },
              { value: 'notEquals', label: 'is not' },
              { value: 'contains', label: 'contains' },
              { value: 'exists', label: 'exists' },
            ]}
            value={p.operator}
            onChange={(operator) => setProperty(index, { operator: (operator ?? 'equals') as 'equals' })}
          />
          {p.operator !== 'exists' && (
            <TextInput
              aria-label="Property value"
              w={150}
              maxLength={500}
              value={p.value === undefined ? '' : String(p.value)}
              onChange={(e) => setProperty(index, { value: e.currentTarget.value })}
            />
          )}
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label="Remove property filter"
            onClick={() =>
              onChange({ ...condition, properties: condition.properties.filter((_, i) => i !== index) })
            }
          >
            <IconX size={14} />
          </ActionIcon>
        </Group>
      ))}
      {condition.properties.length < 10 && (
        <Button
          variant="subtle"
          size="compact-xs"
          w="fit-content"
          leftSection={<IconPlus size={12} />}
          onClick={() =>
            onChange({
              ...condition,
              properties: [...condition.properties, { key: '', operator: 'equals', value: '' }],
            })
          }
        >
          Property filter
        </Button>
      )}
    </Stack>
  );
}

/** The inputs of one condition, by its type. */
export function ConditionInput({
  condition,
  choices,
  onChange,
}: {
  condition: Condition;
  choices: ConditionChoices;
  onChange: (c: Condition) => void;
}) {
  switch (condition.type) {
    case 'field':
      return <FieldConditionInput condition={condition} fields={choices.fields} onChange={onChange} />;
    case 'tag':
      return (
        <Group gap="xs" wrap="wrap">
          <Select
            aria-label="Has or has not"
            w={150}
            allowDeselect={false}
            data={[
              { value: 'has', label: 'has tag' },
              { value: 'hasNot', label: 'does not have tag' },
            ]}
            value={condition.operator}
            onChange={(operator) =>
              onChange({ ...condition, operator: operator === 'hasNot' ? 'hasNot' : 'has' })
            }
          />
          <Select
            aria-label="Tag"
            placeholder="Pick a tag"
            w={220}
            searchable
            data={choices.tags}
            value={condition.tag || null}
            onChange={(tag) => onChange({ ...condition, tag: tag ?? '' })}
            nothingFoundMessage="No such tag"
          />
        </Group>
      );
    case 'event':
      return <EventInput condition={condition} choices={choices} onChange={onChange} />;
    case 'emailActivity':
      return (
        <Group gap="xs" wrap="wrap">
          <Performed
            value={condition.performed}
            onChange={(performed) => onChange({ ...condition, performed })}
          />
          <Select
            aria-label="Activity"
            w={130}
            allowDeselect={false}
            data={emailActivities.map((a) => ({
              value: a,
              label: a === 'unsubscribed' ? 'unsubscribe from' : a,
            }))}
            value={condition.activity}
            onChange={(a) => onChange({ ...condition, activity: (a ?? 'opened') as 'opened' })}
          />
          <Select
            aria-label="Which emails"
            w={150}
            allowDeselect={false}
            data={[
              { value: 'any', label: 'any email' },
              { value: 'email', label: 'the email' },
              { value: 'flow', label: 'an email of flow' },
              { value: 'broadcast', label: 'the broadcast' },
            ]}
            value={condition.subject.type}
            onChange={(t) =>
              onChange({
                ...condition,
                subject:
                  t === 'email' || t === 'flow' || t === 'broadcast'
                    ? { type: t, id: condition.subject.type === 'any' ? 1 : condition.subject.id }
                    : { type: 'any' },
              })
            }
          />
          {condition.subject.type !== 'any' && (
            <NumberInput
              aria-label="Id"
              w={100}
              min={1}
              prefix="#"
              value={condition.subject.id}
              onChange={(n) =>
                condition.subject.type !== 'any' &&
                onChange({ ...condition, subject: { ...condition.subject, id: Math.max(1, Number(n) || 1) } })
              }
            />
          )}
          <WindowInput value={condition.window} onChange={(window) => onChange({ ...condition, window })} />
        </Group>
      );
    case 'segment':
      return (
        <Group gap="xs" wrap="wrap">
          <Select
            aria-label="In or not in"
            w={130}
            allowDeselect={false}
            data={[
              { value: 'in', label: 'is in' },
              { value: 'notIn', label: 'is not in' },
            ]}
            value={condition.operator}
            onChange={(o) => onChange({ ...condition, operator: o === 'notIn' ? 'notIn' : 'in' })}
          />
          <Select
            aria-label="Segment"
            w={240}
            searchable
            allowDeselect={false}
            data={choices.segments.map((s) => ({ value: String(s.id), label: s.name }))}
            value={String(condition.segmentId)}
            onChange={(id) => id && onChange({ ...condition, segmentId: Number(id) })}
          />
        </Group>
      );
    case 'pageVisited':
      return (
        <Group gap="xs" wrap="wrap">
          <Performed
            value={condition.performed}
            onChange={(performed) => onChange({ ...condition, performed })}
          />
          <Select
            aria-label="URL match"
            w={250}
            allowDeselect={false}
            data={[
              { value: 'contains', label: 'visit a URL containing' },
              { value: 'equals', label: 'visit the URL' },
              { value: 'startsWith', label: 'visit a URL starting with' },
              { value: 'pattern', label: 'visit a URL like (*)' },
            ]}
            value={condition.match}
            onChange={(m) => onChange({ ...condition, match: (m ?? 'contains') as 'contains' })}
          />
          <TextInput
            aria-label="URL"
            placeholder="/pricing"
            w={220}
            maxLength={2048}
            value={condition.url}
            onChange={(e) => onChange({ ...condition, url: e.currentTarget.value })}
          />
          <WindowInput value={condition.window} onChange={(window) => onChange({ ...condition, window })} />
        </Group>
      );
    case 'formSubmitted':
      return (
        <Group gap="xs" wrap="wrap">
          <Performed
            value={condition.performed}
            onChange={(performed) => onChange({ ...condition, performed })}
          />
          <TextInput
            aria-label="Form name"
            placeholder="any form"
            w={200}
            maxLength={500}
            value={condition.form ?? ''}
            onChange={(e) => {
              const form = e.currentTarget.value;
              const { form: _old, ...rest } = condition;
              onChange(form ? { ...rest, form } : rest);
            }}
          />
          <WindowInput value={condition.window} onChange={(window) => onChange({ ...condition, window })} />
        </Group>
      );
    case 'created': {
      const isDays = condition.operator === 'withinLast' || condition.operator === 'moreThanAgo';
      return (
        <Group gap="xs" wrap="wrap">
          <Select
            aria-label="When added"
            w={180}
            allowDeselect={false}
            data={[
              { value: 'withinLast', label: 'within the last' },
              { value: 'moreThanAgo', label: 'more than' },
              { value: 'before', label: 'before' },
              { value: 'after', label: 'after' },
              { value: 'on', label: 'on' },
            ]}
            value={condition.operator}
            onChange={(o) => {
              const operator = (o ?? 'withinLast') as ConditionOf<'created'>['operator'];
              const days = operator === 'withinLast' || operator === 'moreThanAgo';
              onChange({
                ...condition,
                operator,
                value: days === isDays ? condition.value : days ? 30 : today(),
              });
            }}
          />
          {isDays ? (
            <NumberInput
              aria-label="Days"
              w={140}
              min={0}
              max={36500}
              suffix={condition.operator === 'moreThanAgo' ? ' days ago' : ' days'}
              value={Number(condition.value)}
              onChange={(n) => onChange({ ...condition, value: Math.max(0, Number(n) || 0) })}
            />
          ) : (
            <DateInput
              label="Date"
              value={String(condition.value)}
              onChange={(date) => onChange({ ...condition, value: date })}
            />
          )}
        </Group>
      );
    }
    case 'status':
      return (
        <Select
          aria-label="Status"
          w={200}
          allowDeselect={false}
          data={[
            { value: 'unsubscribed', label: 'is unsubscribed' },
            { value: 'subscribed', label: 'is subscribed' },
            { value: 'archived', label: 'is archived' },
          ]}
          value={condition.status}
          onChange={(s) => onChange({ ...condition, status: (s ?? 'unsubscribed') as 'unsubscribed' })}
        />
      );
  }
}
