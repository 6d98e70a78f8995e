import {
  cleanFieldName,
  maxFieldValueLength,
  normaliseTag,
  type ColumnMapping,
  type PersonFieldType,
} from '@herald/contracts';
import type { CustomFieldRow } from '../fields/fields.queries.ts';
import { writableTableColumns } from '../people/person-values.ts';
import type { SeenEmails } from './seen-emails.ts';

/** Staging columns for the first-class fields a column can map to: the people table's own names. */
export const stagingColumns = writableTableColumns;

type FirstClass = keyof typeof stagingColumns;
/** Slots of the first-class values in a staging line, email first. */
const slotOf: Record<FirstClass, number> = {
  email: 0,
  firstName: 1,
  lastName: 2,
  phone: 3,
  company: 4,
  website: 5,
  userId: 6,
};

export type ColumnPlan =
  | { index: number; kind: 'first'; name: FirstClass; slot: number }
  | { index: number; kind: 'tags' }
  | {
      index: number;
      kind: 'custom';
      name: string;
      jsonKeyCopy: string;
      type: PersonFieldType;
      isArray: boolean;
      enumValues: string[] | null;
      allowNew: boolean;
    };

/** The field a mapping entry writes to: its field name, or the cleaned name of the new field. */
export const mappedFieldName = (m: ColumnMapping) =>
  m.newField ? cleanFieldName(m.field ?? m.newField.title) : m.field;

/** Turn the mapping into per-column instructions against the file's header. */
export function planColumns(
  header: string[],
  mapping: ColumnMapping[],
  customFields: CustomFieldRow[],
): ColumnPlan[] {
  const byName = new Map(customFields.map((f) => [f.name, f]));
  const plans: ColumnPlan[] = [];
  for (const m of mapping) {
    const name = mappedFieldName(m);
    const index = header.findIndex((h) => h.trim() === m.column.trim());
    if (!name || index < 0) continue;
    if (Object.hasOwn(stagingColumns, name))
      plans.push({ index, kind: 'first', name: name as FirstClass, slot: slotOf[name as FirstClass] });
    else if (name === 'tags') plans.push({ index, kind: 'tags' });
    else {
      const field = byName.get(name);
      if (!field) continue;
      plans.push({
        index,
        kind: 'custom',
        name,
        jsonKeyCopy: copyText(JSON.stringify(name)),
        type: field.type as PersonFieldType,
        isArray: field.isArray,
        enumValues: field.enumValues as string[] | null,
        allowNew: field.allowNewEnumValues,
      });
    }
  }
  return plans;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/;
const isoDay = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])$/;
const truthy = new Set(['true', 'yes', '1', 'y']);
const falsy = new Set(['false', 'no', '0', 'n']);

function convert(plan: Extract<ColumnPlan, { kind: 'custom' }>, raw: string): unknown {
  switch (plan.type) {
    case 'number': {
      const n = Number(raw);
      if (raw === '' || !Number.isFinite(n)) throw new Error(`${plan.name} must be a number.`);
      return n;
    }
    case 'boolean': {
      const v = raw.toLowerCase();
      if (truthy.has(v)) return true;
      if (falsy.has(v)) return false;
      throw new Error(`${plan.name} must be true or false.`);
    }
    case 'date': {
      // A plain ISO day (days 29-31 go the general way, which rolls them over like before) is midnight UTC.
      if (isoDay.test(raw)) return `${raw}T00:00:00.000Z`;
      const t = Date.parse(raw);
      if (Number.isNaN(t)) throw new Error(`${plan.name} must be a date.`);
      return new Date(t).toISOString();
    }
    case 'enum':
      if (!plan.allowNew && !(plan.enumValues ?? []).includes(raw))
        throw new Error(`${plan.name} must be one of: ${(plan.enumValues ?? []).join(', ')}.`);
      return raw;
    default:
      return raw;
  }
}

/** COPY text format: backslash, tab and line breaks escaped; `\N` is null. */
const copyEscapes: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const copyText = (value: string) =>
  copySpecial.test(value) ? value.replace(copySpecialAll, (c) => copyEscapes[c]!) : value;
const copySpecial = /[\\\t\n\r]/;
const copySpecialAll = /[\\\t\n\r]/g;
/** A cell that needs a closer look: a NUL (refused) or a character COPY escapes. Most cells have none. */
const cellSpecial = /[\u0000\\\t\n\r]/;
const jsonSpecial = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;
/** JSON of a value as COPY text; plain strings (nearly all) skip the general serializer and the escaping. */
const jsonCopy = (value: unknown) =>
  typeof value === 'string'
    ? jsonSpecial.test(value)
      ? copyText(JSON.stringify(value))
      : `"${value}"`
    : copyText(JSON.stringify(value));
const pgArray = (values: string[]) => `{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
const rowTagsOf = (raw: string) => {
  if (!raw.includes(',')) {
    const tag = normaliseTag(raw);
    return tag ? [tag] : [];
  }
  return [...new Set(raw.split(',').map(normaliseTag).filter(Boolean))];
};

/**
 * One data row of the file as a line of `COPY import_staging.import_<id> (…) FROM STDIN` (text format,
 * after the account id the caller puts first), or the reason it is refused; the tags of a
 * row that is taken are added to `tagsSeen` and its email to `emailsSeen`. Built straight
 * from the cells: a million rows make no intermediate objects beyond a few strings, and a cell is
 * scanned for characters COPY must escape once (values are kept escaped).
 */
export function stagingLine(
  cells: string[],
  rowNo: number,
  plans: ColumnPlan[],
  tagsSeen?: Set<string>,
  emailsSeen?: SeenEmails,
): string | { reason: string } {
  const first: (string | undefined)[] = [
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ];
  let email: string | undefined;
  let fields = '';
  let tags = '{}';
  let rowTags: string[] | undefined;
  for (const plan of plans) {
    const cell = cells[plan.index];
    if (cell === undefined) continue;
    const raw = cell.trim();
    if (raw.length > maxFieldValueLength)
      return { reason: `A value is longer than ${maxFieldValueLength} characters.` };
    if (raw === '') continue;
    const special = cellSpecial.test(raw);
    if (special && raw.includes('\u0000'))
      return { reason: 'A value holds a NUL character, which text cannot.' };
    if (plan.kind === 'first') {
      if (plan.slot === 0) email = raw;
      first[plan.slot] = special ? copyText(raw) : raw;
    } else if (plan.kind === 'tags') {
      rowTags = rowTagsOf(raw);
      tags = pgArray(rowTags);
      if (tags.includes('\\')) tags = copyText(tags);
    } else {
      let value: unknown;
      try {
        value = plan.isArray ? raw.split(',').map((v) => convert(plan, v.trim())) : convert(plan, raw);
      } catch (error) {
        return { reason: (error as Error).message };
      }
      fields += `${fields ? ',' : ''}${plan.jsonKeyCopy}:${jsonCopy(value)}`;
    }
  }
  if (!email) return { reason: 'The email is missing.' };
  if (email.length > 254 || !emailPattern.test(email))
    return { reason: `"${email.slice(0, 100)}" is not a valid email address.` };
  if (rowTags && tagsSeen) for (const tag of rowTags) tagsSeen.add(tag);
  const emailLower = email.toLowerCase();
  emailsSeen?.add(emailLower);
  // The email pattern allows no whitespace; a backslash is the one character left to escape.
  let line = `${rowNo}\t${first[0]}\t${emailLower.includes('\\') ? copyText(emailLower) : emailLower}`;
  for (let slot = 1; slot < 7; slot += 1) {
    const value = first[slot];
    line += value === undefined ? '\t\\N' : `\t${value}`;
  }
  return `${line}\t{${fields}}\t${tags}\n`;
}

/** Staging columns in the order of `stagingLine`, after account_id. */
export const stagingLineColumns =
  'row_no, email, email_lower, first_name, last_name, phone, company, website, external_id, fields, tags';
