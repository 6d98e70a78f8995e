import { z } from 'zod';
import { type PersonFieldType } from './people.ts';

/** The conditions a segment is built of (docs/segments.md): each kind of leaf, its operators and values. */

const shortText = z.string().max(500);
const isoDate = z.iso
  .date('Dates are written YYYY-MM-DD.')
  .or(z.iso.datetime({ offset: true, message: 'Dates are written YYYY-MM-DD.' }));
const amount = z.number().int().min(0).max(36_500);

/** When something happened: ever, in the last N days, or between two dates (inclusive). */
export const TimeWindow = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ever') }),
  z.strictObject({ type: z.literal('inTheLast'), days: amount.min(1) }),
  z.strictObject({ type: z.literal('between'), from: isoDate, to: isoDate }),
]);
export type TimeWindow = z.infer<typeof TimeWindow>;

export const stringOperators = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'isSet',
  'isNotSet',
] as const;
export const numberOperators = [
  'equals',
  'notEquals',
  'greaterThan',
  'lessThan',
  'isSet',
  'isNotSet',
] as const;
export const booleanOperators = ['isTrue', 'isFalse', 'isSet', 'isNotSet'] as const;
/** before/after/on take a date; withinLast/withinNext/moreThanAgo take days; anniversary matches month and day of today. */
export const dateOperators = [
  'before',
  'after',
  'on',
  'withinLast',
  'withinNext',
  'moreThanAgo',
  'anniversary',
  'isSet',
  'isNotSet',
] as const;
export const enumOperators = ['equals', 'notEquals', 'isSet', 'isNotSet'] as const;
export const fieldOperators = [
  ...new Set([
    ...stringOperators,
    ...numberOperators,
    ...booleanOperators,
    ...dateOperators,
    ...enumOperators,
  ]),
] as unknown as readonly [FieldOperator, ...FieldOperator[]];
export type FieldOperator =
  | (typeof stringOperators)[number]
  | (typeof numberOperators)[number]
  | (typeof booleanOperators)[number]
  | (typeof dateOperators)[number]
  | (typeof enumOperators)[number];

/** Which operators fit a field of each type; the server refuses any other pair. */
export const operatorsByFieldType: Record<PersonFieldType, readonly FieldOperator[]> = {
  string: stringOperators,
  number: numberOperators,
  boolean: booleanOperators,
  date: dateOperators,
  enum: enumOperators,
};
/** Operators that take no value. */
export const valuelessOperators: readonly FieldOperator[] = [
  'isSet',
  'isNotSet',
  'isTrue',
  'isFalse',
  'anniversary',
];
/** Operators whose value is a number of days. */
export const dayOperators: readonly FieldOperator[] = ['withinLast', 'withinNext', 'moreThanAgo'];

/** A person field (first-class like `email` or custom) compared with a value; the value is checked against the field's type. */
export const FieldCondition = z.strictObject({
  type: z.literal('field'),
  field: z.string().min(1).max(100),
  operator: z.enum(fieldOperators),
  value: z.union([shortText, z.number().finite(), z.boolean()]).optional(),
});
export const TagCondition = z.strictObject({
  type: z.literal('tag'),
  operator: z.enum(['has', 'hasNot']),
  tag: z.string().trim().min(1, 'Pick a tag.').max(200),
});
export const PropertyFilter = z.strictObject({
  key: z.string().min(1).max(100),
  operator: z.enum(['equals', 'notEquals', 'contains', 'exists']),
  value: z.union([shortText, z.number().finite(), z.boolean()]).optional(),
});
export const countOperators = ['atLeast', 'atMost', 'exactly'] as const;
/** An event tracked for the person: how often, when, and with which properties. "atMost 0" means never. */
export const EventCondition = z.strictObject({
  type: z.literal('event'),
  name: z.string().trim().min(1, 'Pick an event.').max(200),
  count: z
    .strictObject({ operator: z.enum(countOperators), value: z.number().int().min(0).max(1_000_000) })
    .default({ operator: 'atLeast', value: 1 }),
  window: TimeWindow.default({ type: 'ever' }),
  properties: z.array(PropertyFilter).max(10).default([]),
});
export const emailActivities = ['sent', 'opened', 'clicked', 'bounced', 'unsubscribed'] as const;
/** What an email activity is about: any email, one email, any email of a flow, or a broadcast. */
export const EmailActivitySubject = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('any') }),
  z.strictObject({ type: z.literal('email'), id: z.number().int().positive() }),
  z.strictObject({ type: z.literal('flow'), id: z.number().int().positive() }),
  z.strictObject({ type: z.literal('broadcast'), id: z.number().int().positive() }),
]);
export const EmailActivityCondition = z.strictObject({
  type: z.literal('emailActivity'),
  activity: z.enum(emailActivities),
  performed: z.boolean().default(true),
  subject: EmailActivitySubject.default({ type: 'any' }),
  window: TimeWindow.default({ type: 'ever' }),
});
export const SegmentCondition = z.strictObject({
  type: z.literal('segment'),
  operator: z.enum(['in', 'notIn']),
  segmentId: z.number().int().positive(),
});
export const urlMatches = ['equals', 'contains', 'startsWith', 'pattern'] as const;
/** A page view whose URL matches; `pattern` takes `*` as a wildcard. */
export const PageVisitedCondition = z.strictObject({
  type: z.literal('pageVisited'),
  performed: z.boolean().default(true),
  match: z.enum(urlMatches).default('contains'),
  url: z.string().trim().min(1, 'Enter a URL.').max(2048),
  window: TimeWindow.default({ type: 'ever' }),
});
/** A form submission; with no form, any form. */
export const FormSubmittedCondition = z.strictObject({
  type: z.literal('formSubmitted'),
  performed: z.boolean().default(true),
  form: z.string().trim().max(500).optional(),
  window: TimeWindow.default({ type: 'ever' }),
});
export const CreatedCondition = z.strictObject({
  type: z.literal('created'),
  operator: z.enum(['before', 'after', 'on', 'withinLast', 'moreThanAgo']),
  value: z.union([isoDate, amount]),
});
export const StatusCondition = z.strictObject({
  type: z.literal('status'),
  status: z.enum(['unsubscribed', 'subscribed', 'archived']),
});

export const conditionTypes = [
  'field',
  'tag',
  'event',
  'emailActivity',
  'segment',
  'pageVisited',
  'formSubmitted',
  'created',
  'status',
] as const;
export type ConditionType = (typeof conditionTypes)[number];
export const Condition = z.discriminatedUnion('type', [
  FieldCondition,
  TagCondition,
  EventCondition,
  EmailActivityCondition,
  SegmentCondition,
  PageVisitedCondition,
  FormSubmittedCondition,
  CreatedCondition,
  StatusCondition,
]);
export type Condition = z.infer<typeof Condition>;
export type ConditionOf<T extends ConditionType> = Extract<Condition, { type: T }>;
