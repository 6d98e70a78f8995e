import { cleanFieldName, maxFieldValueLength, normaliseTag, type ColumnMapping, type PersonFieldType } from '@herald/contracts';
import type { CustomFieldRow } from '../fields/fields.queries.ts';

/** Staging columns for the first-class fields a column can map to. */
export const stagingColumns = { email: 'email', firstName: 'first_name', lastName: 'last_name', phone: 'phone', company: 'company', website: 'website', userId: 'external_id' } as const;
type FirstClass = keyof typeof stagingColumns;

export type ColumnPlan =
  | { index: number; kind: 'first'; name: FirstClass }
  | { index: number; kind: 'tags' }
  | { index: number; kind: 'custom'; name: string; type: PersonFieldType; isArray: boolean; enumValues: string[] | null; allowNew: boolean };

export interface StagingRow {
  rowNo: number;
  first: Partial<Record<FirstClass, string>>;
  fields: Record<string, unknown>;
  tags: string[];
}

/** The field a mapping entry writes to: its field name, or the cleaned name of the new field. */
export const mappedFieldName = (m: ColumnMapping) => (m.newField ? cleanFieldName(m.field ?? m.newField.title) : m.field);

/** Turn the mapping into per-column instructions against the file's header. */
export function planColumns(header: string[], mapping: ColumnMapping[], customFields: CustomFieldRow[]): ColumnPlan[] {
  const byName = new Map(customFields.map((f) => [f.name, f]));
  const plans: ColumnPlan[] = [];
  for (const m of mapping) {
    const name = mappedFieldName(m);
    const index = header.findIndex((h) => h.trim() === m.column.trim());
    if (!name || index < 0) continue;
    if (name in stagingColumns) plans.push({ index, kind: 'first', name: name as FirstClass });
    else if (name === 'tags') plans.push({ index, kind: 'tags' });
    else {
      const field = byName.get(name);
      if (!field) continue;
      plans.push({ index, kind: 'custom', name, type: field.type as PersonFieldType, isArray: field.isArray, enumValues: field.enumValues as string[] | null, allowNew: field.allowNewEnumValues });
    }
  }
  return plans;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/;
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
      const t = Date.parse(raw);
      if (Number.isNaN(t)) throw new Error(`${plan.name} must be a date.`);
      return new Date(t).toISOString();
    }
    case 'enum':
      if (!plan.allowNew && !(plan.enumValues ?? []).includes(raw)) throw new Error(`${plan.name} must be one of: ${(plan.enumValues ?? []).join(', ')}.`);
      return raw;
    default:
      return raw;
  }
}

/** One data row of the file as a staging row, or the reason it is refused. */
export function toStagingRow(record: string[], rowNo: number, plans: ColumnPlan[]): StagingRow | { reason: string } {
  const row: StagingRow = { rowNo, first: {}, fields: {}, tags: [] };
  try {
    for (const plan of plans) {
      const raw = (record[plan.index] ?? '').trim();
      if (raw.length > maxFieldValueLength) throw new Error(`A value is longer than ${maxFieldValueLength} characters.`);
      if (raw === '') continue;
      if (plan.kind === 'first') row.first[plan.name] = raw;
      else if (plan.kind === 'tags') row.tags = [...new Set(raw.split(',').map(normaliseTag).filter(Boolean))];
      else row.fields[plan.name] = plan.isArray ? raw.split(',').map((v) => convert(plan, v.trim())) : convert(plan, raw);
    }
  } catch (error) {
    return { reason: (error as Error).message };
  }
  const email = row.first.email;
  if (!email) return { reason: 'The email is missing.' };
  if (email.length > 254 || !emailPattern.test(email)) return { reason: `"${email.slice(0, 100)}" is not a valid email address.` };
  return row;
}
