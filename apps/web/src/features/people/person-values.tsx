import { firstClassFields, type Person, type PersonField } from '@herald/contracts';
import { Badge, Group, Text } from '@mantine/core';
import { formatDateTime } from '../../lib/format.ts';
import { tagsOf } from './people.api.ts';

/** People-list columns when the account has chosen none (peopleTableFields empty). */
export const defaultTableFields = ['email', 'firstName', 'lastName', 'tags', 'createdAt'] as const;

export function fieldTitle(name: string, fields: PersonField[] | undefined): string {
  const field = fields?.find((f) => f.name === name);
  if (field?.title) return field.title;
  return firstClassFields.find((f) => f.name === name)?.title ?? name;
}

export function fieldType(name: string, fields: PersonField[] | undefined): string {
  return (
    fields?.find((f) => f.name === name)?.type ??
    firstClassFields.find((f) => f.name === name)?.type ??
    'string'
  );
}

export function personName(person: Pick<Person, 'firstName' | 'lastName'>): string {
  return [person.firstName, person.lastName].filter(Boolean).join(' ');
}

/** A person's value of one field, shown compactly (tags as badges, dates local, booleans Yes/No). */
export function FieldValue({ person, name, type }: { person: Person; name: string; type: string }) {
  if (name === 'tags') {
    const tags = tagsOf(person);
    if (tags.length === 0)
      return (
        <Text span c="dimmed" size="sm">
          —
        </Text>
      );
    return (
      <Group gap={4} wrap="wrap">
        {tags.slice(0, 4).map((tag) => (
          <Badge key={tag} variant="light" radius="sm" tt="none" fw={500}>
            {tag}
          </Badge>
        ))}
        {tags.length > 4 && (
          <Text span size="xs" c="dimmed">
            +{tags.length - 4}
          </Text>
        )}
      </Group>
    );
  }
  const value = person[name];
  if (value === null || value === undefined || value === '')
    return (
      <Text span c="dimmed" size="sm">
        —
      </Text>
    );
  let text: string;
  if (type === 'boolean' || typeof value === 'boolean') text = value ? 'Yes' : 'No';
  else if (type === 'date' && typeof value === 'string') text = formatDateTime(value);
  else if (Array.isArray(value)) text = value.join(', ');
  else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  return (
    <Text span size="sm" style={{ wordBreak: 'break-word' }}>
      {text}
    </Text>
  );
}
