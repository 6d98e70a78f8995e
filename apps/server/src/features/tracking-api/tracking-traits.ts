import {
  cleanFieldName,
  firstClassFieldNames,
  type PersonFieldType,
  type TrackingUnknownTraits,
} from '@herald/contracts';

/** Segment's traits that name a person's first-class field (docs/people.md, "Segment-compatible Tracking API"). */
const traitColumns: Record<string, string> = {
  email: 'email',
  firstName: 'firstName',
  first_name: 'firstName',
  lastName: 'lastName',
  last_name: 'lastName',
  phone: 'phone',
  website: 'website',
  tags: 'tags',
};

/** Traits that are identities, not values: the person is already resolved by them. */
const identityTraits = new Set(['id', 'userId', 'user_id', 'anonymousId']);

export interface MappedTraits {
  /** Values by Herald's field names, ready for checkPersonValues (which refuses a value of the wrong type). */
  values: Record<string, unknown>;
  /** Custom fields to create first (the account keeps unknown traits as fields). */
  create: { name: string; type: PersonFieldType }[];
  /** Traits no field took, by their Segment names (recorded on the identify event). */
  dropped: string[];
}

function fieldTypeOf(value: unknown): PersonFieldType | undefined {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number' && Number.isFinite(value)) return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return undefined;
}

/**
 * Map an identify call's traits onto a person: the first-class fields by Segment's names (`name` split into first
 * and last name when those are not given, `company` as text or as Segment's `{ name }` object), the account's custom
 * fields by name (exactly, else ignoring case), and the rest dropped or, when the account says so, kept as new custom
 * fields of the value's type (text, number or true/false; lists, objects and nulls are dropped).
 */
export function mapTraits(
  traits: Record<string, unknown>,
  customFields: readonly { name: string }[],
  unknownTraits: TrackingUnknownTraits,
): MappedTraits {
  const exact = new Set(customFields.map((f) => f.name));
  const byLowerName = new Map(customFields.map((f) => [f.name.toLowerCase(), f.name]));
  const result: MappedTraits = { values: {}, create: [], dropped: [] };
  const creating = new Set<string>();
  for (const [key, value] of Object.entries(traits)) {
    if (value === undefined || identityTraits.has(key)) continue;
    const column = traitColumns[key];
    if (column) {
      result.values[column] = value;
      continue;
    }
    if (key === 'name') {
      if (traits.firstName !== undefined || traits.lastName !== undefined) continue;
      if (typeof value !== 'string') {
        result.values.firstName = value; // refused by its check, with the field's name
        continue;
      }
      const [first, ...rest] = value.trim().split(/\s+/);
      result.values.firstName = first ?? '';
      if (rest.length) result.values.lastName = rest.join(' ');
      continue;
    }
    if (key === 'company') {
      const name =
        value && typeof value === 'object' && !Array.isArray(value)
          ? (value as Record<string, unknown>).name
          : value;
      if (name !== undefined) result.values.company = name;
      continue;
    }
    const field = exact.has(key) ? key : byLowerName.get(key.toLowerCase());
    if (field) {
      result.values[field] = value;
      continue;
    }
    const name = cleanFieldName(key);
    const type = fieldTypeOf(value);
    const isTaken = firstClassFieldNames.some((n) => n.toLowerCase() === name.toLowerCase());
    if (unknownTraits === 'field' && name && type && !isTaken && name.length <= 100) {
      if (!creating.has(name.toLowerCase())) result.create.push({ name, type });
      creating.add(name.toLowerCase());
      result.values[name] = value;
    } else result.dropped.push(key);
  }
  return result;
}
