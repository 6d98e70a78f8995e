import { z } from 'zod';
import { entityBody } from './entity-body.ts';
import { Person as PersonShape } from './people.ts';
import { ConditionNode, SegmentConditions } from './segment-condition-tree.ts';
import { segmentLimits, segmentMessages } from './segment-messages.ts';

// A segment's conditions and the area's messages have files of their own; the package exports them from here too.
export * from './segment-messages.ts';
export * from './segment-conditions.ts';
export * from './segment-condition-tree.ts';

/** Archived people is a virtual segment with this id (docs/segments.md). */
export const archivedSegmentId = 1;
export const segmentSortKeys = ['createdAt', 'updatedAt', 'email', 'firstName', 'lastName'] as const;

export const automaticSegmentTypes = [
  'allPeople',
  'archived',
  'unsubscribed',
  'new',
  'engaged',
  'needSomeLove',
] as const;
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
const segmentIgnored = [
  'autoSegment',
  'autoType',
  'memberCount',
  'createdAt',
  'updatedAt',
  'people',
  'page',
  'peopleIds',
  'hasMore',
  'sort',
  'order',
  'error',
  'preview',
] as const;
const segmentName = z
  .string({ message: segmentMessages.nameRequired })
  .trim()
  .min(1, segmentMessages.nameRequired)
  .max(segmentLimits.maxNameLength);
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
  ignoreAnonymous: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});
export const SegmentPreview = z.object({
  totalCount: z.number().int(),
  /** Of them, waiting to confirm a double opt-in (no marketing email until they do); only when some are. */
  pendingConfirmation: z.number().int().optional(),
});
/** Live count of a tree being edited (not yet saved); `segmentId` is the segment being edited, for cycle checks. */
export const PreviewConditionsBody = z.strictObject({
  conditions: SegmentConditions,
  segmentId: z.number().int().positive().optional(),
});
export const ExplainBody = z.strictObject({
  personId: z.number().int().positive(),
  conditions: SegmentConditions.optional(),
});

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
export const ExplainResult = z.object({
  personId: z.number().int(),
  matches: z.boolean(),
  verdicts: z.array(ConditionVerdict),
});

/**
 * The conditions of the automatic segments, defined here once (the database stores only their type).
 * All People: everyone not archived. Unsubscribed: people who unsubscribed. New: people added in the
 * last 30 days. Engaged: opened or clicked an email in the last 30 days. Need some love: added more
 * than 30 days ago and neither opened nor clicked an email in the last 90 days.
 */
export const automaticSegmentConditions: Record<
  Exclude<AutomaticSegmentType, 'archived'>,
  ConditionNode[]
> = {
  allPeople: [],
  unsubscribed: [{ type: 'status', status: 'unsubscribed' }],
  new: [{ type: 'created', operator: 'withinLast', value: 30 }],
  engaged: [
    {
      type: 'group',
      operator: 'or',
      conditions: [
        {
          type: 'emailActivity',
          activity: 'opened',
          performed: true,
          subject: { type: 'any' },
          window: { type: 'inTheLast', days: 30 },
        },
        {
          type: 'emailActivity',
          activity: 'clicked',
          performed: true,
          subject: { type: 'any' },
          window: { type: 'inTheLast', days: 30 },
        },
      ],
    },
  ],
  needSomeLove: [
    { type: 'created', operator: 'moreThanAgo', value: 30 },
    {
      type: 'emailActivity',
      activity: 'opened',
      performed: false,
      subject: { type: 'any' },
      window: { type: 'inTheLast', days: 90 },
    },
    {
      type: 'emailActivity',
      activity: 'clicked',
      performed: false,
      subject: { type: 'any' },
      window: { type: 'inTheLast', days: 90 },
    },
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
export const PersonSegments = z.object({
  segments: z.array(z.object({ id: z.number().int(), name: z.string(), color: z.string().nullable() })),
});
export type PersonSegments = z.infer<typeof PersonSegments>;
