import { z } from 'zod';
import { entityBody } from './entity-body.ts';
import { Person as PersonShape, type PersonFieldType } from './people.ts';

/** Messages of the segments area (docs/segments.md). */
export const segmentMessages = {
  saved: '✅ Segment saved.',
  deleted: '✅ Segment deleted.',
  duplicateCondition: 'This condition already exists.',
  stillBuilding: 'Segment is still building 🏗. Please try again in a few minutes.',
  nameRequired: 'Segment needs a name.',
  idRequired: 'Segment needs an id.',
  notFound: 'Segment not found.',
  personNotFound: 'Person does not exist.',
  automatic: 'Automatic segments cannot be changed or deleted.',
  loadError: 'Error while loading your segments.',
  peopleError: 'Error while getting people in segment.',
  sortError: 'Error while sorting segment.',
  createError: 'Error while creating your segment.',
  saveError: 'Error while saving your segment.',
  deleteError: 'Error while deleting your segment.',
  previewError: 'Error while loading preview for segment.',
  unknownError: 'Unknown error. ',
  cycle: 'A segment cannot include itself, directly or through other segments.',
  tooDeep: (max: number) => `Conditions can be nested at most ${max} levels deep.`,
  tooMany: (max: number) => `A segment can have at most ${max} conditions.`,
  unknownField: (name: string) => `Unknown field: ${name}.`,
  operatorNotForType: (operator: string, type: string) => `The operator "${operator}" does not apply to a ${type} field.`,
  valueRequired: (operator: string) => `The operator "${operator}" needs a value.`,
  valueNotOfType: (name: string, type: string) => `The value for ${name} must be a ${type}.`,
  unknownSegment: (id: number) => `Segment ${id} does not exist.`,
} as const;

/** Limits that keep a tree compilable to one query of sane size. */
export const segmentLimits = { maxDepth: 10, maxConditions: 100, maxNameLength: 200 } as const;
/** Archived people is a virtual segment with this id (docs/segments.md). */
export const archivedSegmentId = 1;
export const segmentSortKeys = ['createdAt', 'updatedAt', 'email', 'firstName', 'lastName'] as const;

const shortText = z.string().max(500);
const isoDate = z.iso.date('Dates are written YYYY-MM-DD.').or(z.iso.datetime({ offset: true, message: 'Dates are written YYYY-MM-DD.' }));
const amount = z.number().int().min(0).max(36_500);

/** When something happened: ever, in the last N days, or between two dates (inclusive). */
export const TimeWindow = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ever') }),
  z.strictObject({ type: z.literal('inTheLast'), days: amount.min(1) }),
  z.strictObject({ type: z.literal('between'), from: isoDate, to: isoDate }),
]);
export type TimeWindow = z.infer<typeof TimeWindow>;

export const stringOperators = ['equals', 'notEquals', 'contains', 'notContains', 'startsWith', 'endsWith', 'isSet', 'isNotSet'] as const;
export const numberOperators = ['equals', 'notEquals', 'greaterThan', 'lessThan', 'isSet', 'isNotSet'] as const;
export const booleanOperators = ['isTrue', 'isFalse', 'isSet', 'isNotSet'] as const;
/** before/after/on take a date; withinLast/withinNext/moreThanAgo take days; anniversary matches month and day of today. */
export const dateOperators = ['before', 'after', 'on', 'withinLast', 'withinNext', 'moreThanAgo', 'anniversary', 'isSet', 'isNotSet'] as const;
export const enumOperators = ['equals', 'notEquals', 'isSet', 'isNotSet'] as const;
export const fieldOperators = [
  ...new Set([...stringOperators, ...numberOperators, ...booleanOperators, ...dateOperators, ...enumOperators]),
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
export const valuelessOperators: readonly FieldOperator[] = ['isSet', 'isNotSet', 'isTrue', 'isFalse', 'anniversary'];
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
  count: z.strictObject({ operator: z.enum(countOperators), value: z.number().int().min(0).max(1_000_000) }).default({ operator: 'atLeast', value: 1 }),
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

export const conditionTypes = ['field', 'tag', 'event', 'emailActivity', 'segment', 'pageVisited', 'formSubmitted', 'created', 'status'] as const;
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

/** An AND/OR group of conditions and further groups. */
export interface ConditionGroup {
  type: 'group';
  operator: 'and' | 'or';
  conditions: ConditionNode[];
}
export type ConditionNode = Condition | ConditionGroup;

export const ConditionGroup: z.ZodType<ConditionGroup> = z.lazy(() =>
  z.strictObject({
    type: z.literal('group'),
    operator: z.enum(['and', 'or']),
    conditions: z.array(ConditionNode).max(segmentLimits.maxConditions),
  }),
);
export const ConditionNode: z.ZodType<ConditionNode> = z.lazy(() => z.union([ConditionGroup, Condition]));
// The recursive tree is a named schema, so the OpenAPI document can point at it (a cycle cannot be inlined).
z.globalRegistry.add(ConditionGroup, { id: 'SegmentConditionGroup' });
z.globalRegistry.add(ConditionNode, { id: 'SegmentConditionNode' });

/** Depth of a list of nodes: a flat list is 1, each nested group adds one. */
export function conditionDepth(nodes: readonly ConditionNode[]): number {
  let depth = 1;
  for (const node of nodes) if (node.type === 'group') depth = Math.max(depth, 1 + conditionDepth(node.conditions));
  return depth;
}
/** Number of leaf conditions in a list of nodes. */
export function conditionCount(nodes: readonly ConditionNode[]): number {
  let count = 0;
  for (const node of nodes) count += node.type === 'group' ? conditionCount(node.conditions) : 1;
  return count;
}
/** A canonical text of a node (keys sorted) so equal conditions compare equal. */
export function conditionKey(node: ConditionNode): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
    return value;
  };
  return JSON.stringify(canonical(node));
}
/** True when some group (or the top list) holds the same condition twice. */
export function hasDuplicateCondition(nodes: readonly ConditionNode[]): boolean {
  const seen = new Set<string>();
  for (const node of nodes) {
    if (node.type === 'group' && hasDuplicateCondition(node.conditions)) return true;
    const key = conditionKey(node);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/**
 * A segment's conditions: the top-level list is joined by AND. Depth, count and duplicates are
 * checked here, so every caller refuses the same trees with the same words.
 */
export const SegmentConditions = z
  .array(z.unknown())
  .max(segmentLimits.maxConditions, segmentMessages.tooMany(segmentLimits.maxConditions))
  .superRefine((raw, ctx) => {
    // Depth and count are checked before the recursive parse, so a 10,000-level tree never reaches it.
    const depthOf = (value: unknown, level: number): number => {
      if (level > segmentLimits.maxDepth + 1) return level;
      if (!value || typeof value !== 'object' || (value as { type?: unknown }).type !== 'group') return level;
      const children = (value as { conditions?: unknown }).conditions;
      if (!Array.isArray(children)) return level;
      return Math.max(level + 1, ...children.map((c) => depthOf(c, level + 1)));
    };
    const countOf = (value: unknown, budget: { left: number }): void => {
      if (budget.left < 0) return;
      if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'group') {
        const children = (value as { conditions?: unknown }).conditions;
        if (Array.isArray(children)) for (const c of children) countOf(c, budget);
      } else budget.left -= 1;
    };
    if (Math.max(1, ...raw.map((n) => depthOf(n, 1))) > segmentLimits.maxDepth) {
      ctx.addIssue({ code: 'custom', message: segmentMessages.tooDeep(segmentLimits.maxDepth) });
      return;
    }
    const budget = { left: segmentLimits.maxConditions };
    for (const node of raw) countOf(node, budget);
    if (budget.left < 0) ctx.addIssue({ code: 'custom', message: segmentMessages.tooMany(segmentLimits.maxConditions) });
  })
  .pipe(z.array(ConditionNode))
  .refine((nodes) => !hasDuplicateCondition(nodes), segmentMessages.duplicateCondition);

export const automaticSegmentTypes = ['allPeople', 'archived', 'unsubscribed', 'new', 'engaged', 'needSomeLove'] as const;
export type AutomaticSegmentType = (typeof automaticSegmentTypes)[number];

const color = z.string().regex(/^#[0-9a-f]{6}$/i, 'Colour must be like #aabbcc.');

export const Segment = z.object({
  id: z.number().int(),
  name: z.string(),
  color: z.string().nullable(),
  autoSegment: z.boolean(),
  autoType: z.enum(automaticSegmentTypes).nullable(),
  conditions: z.array(ConditionNode),
  /** Members as of the last refresh (null while the first refresh has not run, or for All People and Archived). */
  memberCount: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Segment = z.infer<typeof Segment>;
export const SegmentList = z.object({ segments: z.array(Segment) });
/**
 * What the server works out for a segment, and the client-only people paging and preview: accepted and ignored, so
 * the client can send the segment as it holds it (docs/api.md, "Serialized entity bodies").
 */
const segmentIgnored = ['autoSegment', 'autoType', 'memberCount', 'createdAt', 'updatedAt', 'people', 'page', 'peopleIds', 'hasMore', 'sort', 'order', 'error', 'preview'] as const;
const segmentName = z.string({ message: segmentMessages.nameRequired }).trim().min(1, segmentMessages.nameRequired).max(segmentLimits.maxNameLength);
/** POST /v1/segments/: a segment body; the server gives it its id. */
export const CreateSegmentBody = entityBody(
  { name: segmentName, color: color.nullable().optional(), conditions: SegmentConditions.optional() },
  ['id', ...segmentIgnored],
);
/** The segment minus people and preview (docs/segments.md); name and id are required, the id the address's. */
export const UpdateSegmentBody = entityBody(
  {
    id: z.number({ message: segmentMessages.idRequired }).int().positive(),
    name: segmentName,
    color: color.nullable().optional(),
    conditions: SegmentConditions.optional(),
  },
  segmentIgnored,
);
export const SegmentPeopleQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  sort: z.enum(segmentSortKeys).default('createdAt'),
  order: z.enum(['asc', 'desc']).default('desc'),
  ignoreAnonymous: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
});
export const SegmentPreview = z.object({ totalCount: z.number().int() });
/** Live count of a tree being edited (not yet saved); `segmentId` is the segment being edited, for cycle checks. */
export const PreviewConditionsBody = z.strictObject({ conditions: SegmentConditions, segmentId: z.number().int().positive().optional() });
export const ExplainBody = z.strictObject({ personId: z.number().int().positive(), conditions: SegmentConditions.optional() });

/** Why a person is in or out: each node's verdict, groups with their children. */
export interface ConditionVerdict {
  node: ConditionNode;
  matches: boolean;
  children?: ConditionVerdict[];
}
export const ConditionVerdict: z.ZodType<ConditionVerdict> = z.lazy(() =>
  z.object({ node: ConditionNode, matches: z.boolean(), children: z.array(ConditionVerdict).optional() }),
);
z.globalRegistry.add(ConditionVerdict, { id: 'SegmentConditionVerdict' });
export const ExplainResult = z.object({ personId: z.number().int(), matches: z.boolean(), verdicts: z.array(ConditionVerdict) });

/**
 * The conditions of the automatic segments, defined here once (the database stores only their type).
 * All People: everyone not archived. Unsubscribed: people who unsubscribed. New: people added in the
 * last 30 days. Engaged: opened or clicked an email in the last 30 days. Need some love: added more
 * than 30 days ago and neither opened nor clicked an email in the last 90 days.
 */
export const automaticSegmentConditions: Record<Exclude<AutomaticSegmentType, 'archived'>, ConditionNode[]> = {
  allPeople: [],
  unsubscribed: [{ type: 'status', status: 'unsubscribed' }],
  new: [{ type: 'created', operator: 'withinLast', value: 30 }],
  engaged: [
    {
      type: 'group',
      operator: 'or',
      conditions: [
        { type: 'emailActivity', activity: 'opened', performed: true, subject: { type: 'any' }, window: { type: 'inTheLast', days: 30 } },
        { type: 'emailActivity', activity: 'clicked', performed: true, subject: { type: 'any' }, window: { type: 'inTheLast', days: 30 } },
      ],
    },
  ],
  needSomeLove: [
    { type: 'created', operator: 'moreThanAgo', value: 30 },
    { type: 'emailActivity', activity: 'opened', performed: false, subject: { type: 'any' }, window: { type: 'inTheLast', days: 90 } },
    { type: 'emailActivity', activity: 'clicked', performed: false, subject: { type: 'any' }, window: { type: 'inTheLast', days: 90 } },
  ],
};

/** Answers of the segment calls (docs/segments.md). */
export const SegmentResponse = z.object({ segment: Segment });
export const SegmentSaved = z.object({ segment: Segment, message: z.string() });
/** One page of a segment's people; `hasMore` tells the client to offer the next page. */
export const SegmentPeople = z.object({
  users: z.array(z.lazy(() => PersonShape)),
  hasMore: z.boolean(),
});
/** Event names seen in the account, for the event condition's suggestions. */
export const EventNames = z.object({ names: z.array(z.string()) });
/** The kept segments a person is in now (`GET /v1/people/{id}/segments`), for the person page. */
export const PersonSegments = z.object({ segments: z.array(z.object({ id: z.number().int(), name: z.string(), color: z.string().nullable() })) });
export type PersonSegments = z.infer<typeof PersonSegments>;
