import {
  firstClassFieldNames,
  maxFieldValueLength,
  normaliseTag,
  peopleMessages,
  type PersonFieldType,
} from '@herald/contracts';
import { z } from 'zod';
import { badRequest } from '../../http/errors.ts';
import type { CustomFieldRow } from '../fields/fields.queries.ts';

/** First-class fields a write may set, and their columns. */
export const writableColumns = {
  email: 'email',
  firstName: 'firstName',
  lastName: 'lastName',
  phone: 'phone',
  company: 'company',
  website: 'website',
  userId: 'externalId',
} as const;
type WritableName = keyof typeof writableColumns;

/** The people table's column of each first-class field a write may set (for SQL written by hand). */
export const writableTableColumns = {
  email: 'email',
  firstName: 'first_name',
  lastName: 'last_name',
  phone: 'phone',
  company: 'company',
  website: 'website',
  userId: 'external_id',
} as const satisfies Record<WritableName, string>;
export type PersonColumns = Partial<Record<(typeof writableColumns)[WritableName], string | null>>;

export interface CheckedValues {
  columns: PersonColumns;
  /** Custom field values; null removes the value. */
  fields: Record<string, unknown>;
  tags: string[] | undefined;
}

const emailSchema = z.email();

function checkScalar(name: string, type: PersonFieldType, value: unknown, field?: CustomFieldRow): unknown {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw badRequest(peopleMessages.wrongType(name, 'text'));
      if (value.length > maxFieldValueLength) throw badRequest(peopleMessages.valueTooLong(name));
      return value;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw badRequest(peopleMessages.wrongType(name, 'number'));
      return value;
    case 'boolean':
      if (typeof value !== 'boolean')
        throw badRequest(peopleMessages.wrongType(name, 'boolean (true or false)'));
      return value;
    case 'date': {
      if (typeof value !== 'string' || value.length > 40 || Number.isNaN(Date.parse(value)))
        throw badRequest(peopleMessages.wrongType(name, 'date (ISO 8601)'));
      return new Date(value).toISOString();
    }
    case 'enum': {
      if (typeof value !== 'string') throw badRequest(peopleMessages.wrongType(name, 'text'));
      if (value.length > maxFieldValueLength) throw badRequest(peopleMessages.valueTooLong(name));
      const allowed = (field?.enumValues as string[] | null) ?? [];
      if (!field?.allowNewEnumValues && !allowed.includes(value))
        throw badRequest(`${name} must be one of: ${allowed.join(', ')}.`);
      return value;
    }
  }
}

/** Split tags given as a comma-separated string or a list, normalised, without empties or repeats. */
export function parseTags(value: unknown): string[] {
  const parts = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (!parts || parts.some((p) => typeof p !== 'string'))
    throw badRequest('tags must be a comma-separated text or a list of texts.');
  const tags = [...new Set((parts as string[]).map(normaliseTag).filter(Boolean))];
  if (tags.some((t) => t.length > 200)) throw badRequest('A tag is at most 200 characters.');
  return tags;
}

/**
 * Check a person write against the account's fields: known names only, values of the field's type,
 * at most 5000 characters; returns columns, custom values and tags to store.
 */
export function checkPersonValues(
  values: Record<string, unknown>,
  customFields: CustomFieldRow[],
  options: { allowTags: boolean },
): CheckedValues {
  const byName = new Map(customFields.map((f) => [f.name, f]));
  const result: CheckedValues = { columns: {}, fields: {}, tags: undefined };
  for (const [name, value] of Object.entries(values)) {
    if (Object.hasOwn(writableColumns, name)) {
      const column = writableColumns[name as WritableName];
      if (value === null || value === '') {
        if (name === 'email') throw badRequest('email cannot be removed.');
        result.columns[column] = null;
        continue;
      }
      const text = checkScalar(name, 'string', value) as string;
      if (name === 'email' && !emailSchema.safeParse(text.trim()).success)
        throw badRequest('Enter a valid email address.');
      result.columns[column] = name === 'email' ? text.trim() : text;
      continue;
    }
    if (name === 'tags' && options.allowTags) {
      result.tags = parseTags(value);
      continue;
    }
    const field = byName.get(name);
    if (!field && firstClassFieldNames.includes(name)) throw badRequest(`${name} is read-only.`);
    if (!field) throw badRequest(peopleMessages.unknownField(name));
    if (value === null) {
      result.fields[name] = null;
      continue;
    }
    const type = field.type as PersonFieldType;
    if (field.isArray) {
      if (!Array.isArray(value) || value.length > 1000)
        throw badRequest(peopleMessages.wrongType(name, `list of ${type} values`));
      result.fields[name] = value.map((v) => checkScalar(name, type, v, field));
    } else {
      result.fields[name] = checkScalar(name, type, value, field);
    }
  }
  return result;
}
