import {
  cleanFieldName,
  type ColumnMapping,
  type PersonField,
  type PersonFieldType,
} from '@herald/contracts';

/** First-class fields a column can fill (the server's staging columns), and the tags. */
export const mappableFirstClass = [
  'email',
  'firstName',
  'lastName',
  'phone',
  'company',
  'website',
  'userId',
  'tags',
];

/** Select values that are not field names. */
export const skipValue = '__skip__';
export const newFieldValue = '__new__';

/** Where one column goes: a field, a new field, or nowhere. */
export type ColumnChoice =
  { kind: 'skip' } | { kind: 'field'; name: string } | { kind: 'new'; title: string; type: PersonFieldType };

export function mappableFields(fields: PersonField[]): PersonField[] {
  return fields.filter((f) =>
    f.firstClassField ? mappableFirstClass.includes(f.name) : f.canMapFrom && !f.readOnly,
  );
}

const normalise = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** Extra spellings of the first-class fields seen in exported files. */
const aliases: Record<string, string[]> = {
  email: ['email', 'emailaddress', 'mail', 'emailid', 'emails'],
  firstName: ['firstname', 'first', 'givenname', 'forename', 'fname'],
  lastName: ['lastname', 'last', 'surname', 'familyname', 'lname'],
  phone: ['phone', 'phonenumber', 'mobile', 'telephone', 'tel', 'mobilephone', 'cell'],
  company: ['company', 'companyname', 'organisation', 'organization', 'org'],
  website: ['website', 'url', 'site', 'web', 'homepage'],
  userId: ['userid', 'id', 'externalid', 'customerid'],
  tags: ['tags', 'tag', 'labels'],
};

/** The field a header most likely means, by its normalised text against field names, titles and aliases. */
export function suggestField(header: string, fields: PersonField[]): string | null {
  const key = normalise(header);
  if (!key) return null;
  for (const field of fields) {
    if (normalise(field.name) === key || normalise(field.title) === key) return field.name;
  }
  for (const field of fields) {
    if (aliases[field.name]?.includes(key)) return field.name;
  }
  return null;
}

/** One choice per column, each field suggested at most once (the first column that matches gets it). */
export function suggestMapping(header: string[], fields: PersonField[]): ColumnChoice[] {
  const taken = new Set<string>();
  return header.map((column) => {
    const name = suggestField(column, fields);
    if (!name || taken.has(name)) return { kind: 'skip' };
    taken.add(name);
    return { kind: 'field', name };
  });
}

/** The name a choice writes to (a new field's name is its cleaned title), or null when skipped. */
export function choiceFieldName(choice: ColumnChoice): string | null {
  if (choice.kind === 'skip') return null;
  return choice.kind === 'field' ? choice.name : cleanFieldName(choice.title);
}

/** The first problem with a mapping, as the server would word it; null when it can be imported. */
export function mappingProblem(choices: ColumnChoice[], existingNames: string[]): string | null {
  const names = choices.map(choiceFieldName);
  if (names.every((n) => n === null)) return "Can't import without mapped fields.";
  if (names.filter((n) => n === 'email').length !== 1)
    return 'Map a column to Email: every person needs an email.';
  const seen = new Set<string>();
  for (const [i, choice] of choices.entries()) {
    const name = names[i];
    if (!name) continue;
    if (choice.kind === 'new' && existingNames.includes(name)) return `A field named ${name} already exists.`;
    if (seen.has(name) && name !== 'tags') return `Two columns are mapped to ${name}: map each field once.`;
    seen.add(name);
  }
  return null;
}

export function toColumnMapping(header: string[], choices: ColumnChoice[]): ColumnMapping[] {
  return header.map((column, i) => {
    const choice = choices[i] ?? { kind: 'skip' };
    if (choice.kind === 'skip') return { column, field: null };
    if (choice.kind === 'field') return { column, field: choice.name };
    return {
      column,
      field: cleanFieldName(choice.title),
      newField: { title: choice.title.trim(), type: choice.type },
    };
  });
}
