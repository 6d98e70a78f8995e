import { z } from 'zod';

/** Messages of the people, tags and fields areas (docs/people.md). */
export const peopleMessages = {
  personNotFound: 'Person does not exist.',
  personUpdated: 'Person updated',
  personDeleted: 'Person has been deleted.',
  emailTaken: 'A person with this email already exists.',
  missingTagName: 'Missing tag name.',
  missingUsers: 'Missing users.',
  tagExists: 'This tag already exists.',
  tagNotFound: 'Tag not found.',
  tagCreated: '✅ Tag created.',
  tagEditWarning: 'Modifying this tag will change it in flows, segments and people.',
  couldNotCreateTag: "Couldn't create tag.",
  couldNotDeleteTag: "Couldn't delete tag.",
  errorEditingTag: 'Error while editing tag.',
  searchError: 'Error while searching for people.',
  unknownField: (name: string) => `Unknown field: ${name}.`,
  valueTooLong: (name: string) => `The value of ${name} is longer than 5000 characters.`,
  wrongType: (name: string, type: string) => `${name} must be a ${type}.`,
  fieldExists: (name: string) => `A field named ${name} already exists.`,
  fieldNotEditable: 'This field is built in and cannot be changed or deleted.',
  fieldNotFound: 'Field not found.',
  invalidFieldName: 'A field name needs at least one letter or digit.',
  noPeopleOrSegment: {
    tag: "Can't tag people: no people or segment selected.",
    export: "Can't export people: no people or segment selected.",
    archive: "Can't archive people: no people or segment selected.",
  },
  peopleWillBeTagged: 'People will be tagged shortly.',
  peopleWillBeExported: "People will be exported shortly. We'll email you a download link.",
  peopleWillBeArchived: 'People will be archived shortly.',
  peopleWillBeRestored: 'People will be restored shortly.',
  exportNeedsEmail: "Can't send exported people, since you have no email set.",
  invalidWriteKey: 'Invalid write key.',
} as const;

/** Maximum length of a person field value (docs/people.md). */
export const maxFieldValueLength = 5000;
/** People page size (docs/people.md). */
export const peoplePageSize = 100;

export const personFieldTypes = ['string', 'number', 'boolean', 'date', 'enum'] as const;
export type PersonFieldType = (typeof personFieldTypes)[number];

/**
 * Field names keep letters, digits, space, hyphen, dot and underscore; repeated dots collapse;
 * whitespace and leading or trailing dots go (docs/people.md).
 */
export function cleanFieldName(raw: string): string {
  return raw
    .replace(/[^\p{L}\p{N} \-._]/gu, '')
    .replace(/\.{2,}/g, '.')
    .replace(/\s+/g, '')
    .replace(/^\.+|\.+$/g, '');
}

/** Tag names: whitespace collapsed, commas removed, trimmed (docs/people.md). */
export function normaliseTag(raw: string): string {
  return raw.replace(/,/g, '').replace(/\s+/g, ' ').trim();
}

/** Built-in fields: first-class columns of every person; they cannot be edited or deleted. */
export const firstClassFields = [
  { name: 'email', title: 'Email', type: 'string' },
  { name: 'firstName', title: 'First name', type: 'string' },
  { name: 'lastName', title: 'Last name', type: 'string' },
  { name: 'phone', title: 'Phone', type: 'string' },
  { name: 'company', title: 'Company', type: 'string' },
  { name: 'website', title: 'Website', type: 'string' },
  { name: 'userId', title: 'User ID', type: 'string' },
  { name: 'tags', title: 'Tags', type: 'string' },
  { name: 'createdAt', title: 'Created', type: 'date' },
  { name: 'updatedAt', title: 'Updated', type: 'date' },
  { name: 'unsubscribed', title: 'Unsubscribed', type: 'boolean' },
  { name: 'unsubscribeReason', title: 'Unsubscribe reason', type: 'string' },
] as const satisfies readonly { name: string; title: string; type: PersonFieldType }[];
export const firstClassFieldNames: readonly string[] = firstClassFields.map((f) => f.name);
/** Written by the system only (and the unsubscribe reason, which only unsubscribing sets). */
export const readOnlyFieldNames = ['createdAt', 'updatedAt', 'unsubscribeReason', 'tags'] as const;

export const PersonField = z.object({
  name: z.string(),
  type: z.enum(personFieldTypes),
  title: z.string(),
  icon: z.string().nullable(),
  tooltip: z.string().nullable(),
  format: z.string().nullable(),
  readOnly: z.boolean(),
  canMapFrom: z.boolean(),
  firstClassField: z.boolean(),
  array: z.boolean(),
  createdBy: z.string(),
  enum: z.array(z.string()).nullable(),
  enumNames: z.array(z.string()).nullable(),
  allowNewEnumValues: z.boolean(),
});
export type PersonField = z.infer<typeof PersonField>;

const text = (max = 200) => z.string().trim().max(max);
export const PersonFieldInput = z.strictObject({
  name: text(100).min(1, 'Field name is required.'),
  title: text(200).optional(),
  type: z.enum(personFieldTypes).default('string'),
  icon: text(100).optional(),
  tooltip: text(500).optional(),
  format: text(100).optional(),
  array: z.boolean().optional(),
  enum: z.array(text(200).min(1)).max(500).optional(),
  enumNames: z.array(text(200)).max(500).optional(),
  allowNewEnumValues: z.boolean().optional(),
});
export const CreateFieldsBody = z.strictObject({ items: z.array(PersonFieldInput).min(1).max(100) });
export const UpdateFieldBody = PersonFieldInput.omit({ name: true, type: true }).partial();
export const FieldList = z.object({ items: z.array(PersonField) });

/** A person as the API returns it: first-class fields, custom fields flattened, tags comma-separated. */
export const Person = z
  .object({
    id: z.number().int(),
    email: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    phone: z.string().nullable(),
    company: z.string().nullable(),
    website: z.string().nullable(),
    userId: z.string().nullable(),
    tags: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    archived: z.boolean(),
    unsubscribed: z.boolean(),
    unsubscribeReason: z.string().nullable(),
  })
  .catchall(z.unknown());
export type Person = z.infer<typeof Person>;

/** Field values a person write may carry: first-class and custom fields, checked against the account's fields. */
export const PersonValues = z
  .record(z.string().max(100), z.unknown())
  .refine((v) => Object.keys(v).length <= 500, 'Too many fields.');
export const PersonUsers = z.object({ users: z.array(Person) });
export const PersonSearchQuery = z.object({
  query: z.string().max(200).default(''),
  page: z.coerce.number().int().min(0).max(100_000).default(0),
  attributes: z.string().max(20).optional(),
});
export const PersonSearchResult = z.object({
  users: z.array(Person),
  page: z.number().int(),
  hasMore: z.boolean(),
});
export { IdParams as PersonIdParams } from './common.ts';

const idList = z
  .array(
    z.coerce
      .number()
      .int()
      .positive()
      .max(2 ** 53),
  )
  .max(100_000);
export const TagPeopleBody = z.strictObject({
  tag: z.string().max(200).optional(),
  id: z
    .union([
      z.coerce
        .number()
        .int()
        .positive()
        .max(2 ** 53),
      idList,
    ])
    .optional(),
});

export const Event = z.object({
  id: z.number().int(),
  personId: z.number().int().nullable(),
  type: z.string(),
  name: z.string().nullable(),
  url: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  source: z.string(),
  createdAt: z.string(),
});
export const EventPage = z.object({
  events: z.array(Event),
  paging: z.object({ after: z.string().nullable() }),
});
export const EventPageQuery = z.object({
  cursor: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  source: z.string().max(50).optional(),
  includeEndUsers: z.enum(['true', 'false']).optional(),
});

/** One call of the ingestion API: identify a person, track an event, or record a page view. */
export const IngestMessage = z.strictObject({
  type: z.enum(['identify', 'track', 'page']),
  email: z.string().trim().max(254).optional(),
  userId: z.string().trim().max(200).optional(),
  anonymousId: z.string().trim().max(200).optional(),
  traits: z.record(z.string().max(100), z.unknown()).optional(),
  name: z.string().trim().max(200).optional(),
  properties: z.record(z.string().max(100), z.unknown()).optional(),
  url: z.string().max(2048).optional(),
  timestamp: z.iso.datetime({ offset: true }).optional(),
});
export type IngestMessage = z.infer<typeof IngestMessage>;
export const IngestBatchBody = z.strictObject({ batch: z.array(IngestMessage).min(1).max(1000) });
export const IngestResult = z.object({
  accepted: z.number().int(),
  rejected: z.array(z.object({ index: z.number().int(), message: z.string() })),
});

export const Tag = z.object({
  tag: z.string(),
  description: z.string().nullable(),
  count: z.number().int().optional(),
  createdAt: z.string(),
});
export const TagList = z.object({ tags: z.array(Tag) });
export const TagCounts = z.object({
  tagCounts: z.array(z.object({ tag: z.string(), count: z.number().int() })),
});
export const CreateTagsBody = z.strictObject({
  tags: z
    .array(z.strictObject({ tag: z.string().max(200), description: z.string().trim().max(1000).optional() }))
    .min(1)
    .max(100),
});
export const UpdateTagBody = z.strictObject({
  tag: z.string().max(200).optional(),
  description: z.string().trim().max(1000).optional(),
});
export const TagParams = z.object({ tag: z.string().min(1).max(200) });
