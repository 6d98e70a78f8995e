import { z } from 'zod';
import { AbTest, AbTestInput, AbTestResults } from './ab-tests.ts';
import { entityBody } from './entity-body.ts';

/** Broadcast statuses (docs/broadcasts-and-sending.md). */
export const broadcastStatuses = [
  'draft',
  'scheduled',
  'sending',
  'sent',
  'canceled',
  'failed',
  'ab-testing',
  'ab-test-sending-winner',
] as const;
export type BroadcastStatus = (typeof broadcastStatuses)[number];

/** 'A/B Testing' and 'Sending A/B test winner'; the others capitalised. */
export const broadcastStatusLabels: Record<BroadcastStatus, string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  sending: 'Sending',
  sent: 'Sent',
  canceled: 'Canceled',
  failed: 'Failed',
  'ab-testing': 'A/B Testing',
  'ab-test-sending-winner': 'Sending A/B test winner',
};

export type BroadcastBadgeColor = 'success' | 'primary' | 'light' | 'warning' | 'secondary' | 'danger';
/** Badge colours by status (the spec's names; the web maps them onto its theme). */
export const broadcastBadgeColors: Record<BroadcastStatus, BroadcastBadgeColor> = {
  sent: 'success',
  'ab-testing': 'primary',
  'ab-test-sending-winner': 'primary',
  sending: 'primary',
  draft: 'light',
  scheduled: 'warning',
  canceled: 'secondary',
  failed: 'danger',
};

/** Statuses polled for updates after load (docs/broadcasts-and-sending.md). */
export const broadcastPollingStatuses: readonly BroadcastStatus[] = [
  'ab-test-sending-winner',
  'ab-testing',
  'scheduled',
  'sending',
];
/** Only draft or scheduled broadcasts are editable (and sendable). */
export const editableBroadcastStatuses: readonly BroadcastStatus[] = ['draft', 'scheduled'];
/** Statuses a pause or resume applies to (the broadcast keeps its status and records pausedAt). */
export const pausableBroadcastStatuses: readonly BroadcastStatus[] = [
  'sending',
  'ab-testing',
  'ab-test-sending-winner',
];
/** Statuses a cancel applies to. */
export const cancelableBroadcastStatuses: readonly BroadcastStatus[] = [
  'scheduled',
  'sending',
  'ab-testing',
  'ab-test-sending-winner',
];

export const isBroadcastEditable = (status: BroadcastStatus) => editableBroadcastStatuses.includes(status);
export const isBroadcastPolled = (status: BroadcastStatus) => broadcastPollingStatuses.includes(status);

/** Messages of the broadcasts area (docs/broadcasts-and-sending.md). */
export const broadcastMessages = {
  defaultName: 'My Broadcast',
  noEmail: 'No email selected.',
  sending: 'Awesome! Broadcast is sending.',
  scheduled: 'Awesome! Broadcast is scheduled.',
  canceled: 'Broadcast has been canceled.',
  archived: 'Broadcast archived.',
  duplicated: 'Broadcast duplicated.',
  notFound: 'Broadcast not found.',
  notEditable: (label: string) =>
    `This broadcast is ${label.toLowerCase()}: only draft and scheduled broadcasts can be changed.`,
  notSendable: (label: string) =>
    `This broadcast is ${label.toLowerCase()}: only draft and scheduled broadcasts can be sent.`,
  alreadySent: 'This broadcast has already been sent, so it cannot be canceled.',
  notCancelable: (label: string) =>
    `This broadcast is ${label.toLowerCase()}: only scheduled or sending broadcasts can be canceled.`,
  cannotArchiveSending: 'This broadcast is sending and cannot be archived. Cancel it first.',
  sendAtInPast: 'The send time is in the past. Pick a time in the future, or send now.',
  emailGone: 'The selected email no longer exists. Choose another one.',
  segmentGone: (id: number) => `Segment ${id} no longer exists. Choose the audience again.`,
  audienceInvalid: 'The audience of this broadcast is not valid. Choose it again.',
  nobodyToSend:
    'Nobody in this audience can receive this email (everyone is excluded, suppressed or opted out).',
  nameTooLong: 'Broadcast name must be at most 200 characters.',
  // Web toasts and fallbacks (docs/broadcasts-and-sending.md)
  loadError: 'Error while loading broadcasts.',
  createError: 'Error while creating broadcast.',
  saveError: "Couldn't save broadcast.",
  archiveError: "Couldn't archive broadcast.",
  sendError: "Couldn't send broadcast.",
  cancelError: "Couldn't cancel broadcast.",
} as const;

export const broadcastLimits = { maxNameLength: 200, maxAudienceItems: 50, maxTagLength: 200 } as const;

const ids = z.array(z.number().int().positive()).max(broadcastLimits.maxAudienceItems);
const tags = z
  .array(z.string().trim().min(1).max(broadcastLimits.maxTagLength))
  .max(broadcastLimits.maxAudienceItems);
const exclusions = { excludeSegmentIds: ids.optional(), excludeTags: tags.optional() };

/** Who gets a broadcast: everyone, people in any of some segments, or people with any of some tags; minus exclusions. */
export const Audience = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('all'), ...exclusions }),
  z.strictObject({
    type: z.literal('segments'),
    segmentIds: ids.min(1, 'Choose at least one segment.'),
    ...exclusions,
  }),
  z.strictObject({ type: z.literal('tags'), tags: tags.min(1, 'Choose at least one tag.'), ...exclusions }),
]);
export type Audience = z.infer<typeof Audience>;

/** How sendAt is read: one moment for everyone (the account's time zone), or the same local time for each recipient. */
export const BroadcastTime = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('account') }),
  z.strictObject({ type: z.literal('recipient') }),
]);
export type BroadcastTime = z.infer<typeof BroadcastTime>;

/** queued and excluded are fixed when the send starts; sent, failed and pending (not sent yet, including in flight) are live. */
export const BroadcastStats = z.object({
  queued: z.number().int(),
  excluded: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  pending: z.number().int(),
});
export type BroadcastStats = z.infer<typeof BroadcastStats>;
export const emptyBroadcastStats: BroadcastStats = { queued: 0, excluded: 0, sent: 0, failed: 0, pending: 0 };

/** A broadcast (docs/broadcasts-and-sending.md plus what sending adds). Dates are ISO strings. */
export const Broadcast = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(broadcastStatuses),
  emailId: z.number().int().nullable(),
  sendAt: z.string().nullable(),
  time: BroadcastTime.nullable(),
  createdBy: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  integrationId: z.string().nullable(),
  audience: Audience,
  stats: BroadcastStats,
  /** Why it failed, when status is failed. */
  failure: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  archived: z.boolean(),
  /** When it was paused; null unless it is paused now (pending deliveries are held until it is resumed). */
  pausedAt: z.string().nullable(),
  /** The A/B test (ab-tests.ts), or null for one email to everyone. */
  abTest: AbTest.nullable(),
});
export type Broadcast = z.infer<typeof Broadcast>;

/** GET /v1/broadcasts */
export const BroadcastList = z.object({ items: z.array(Broadcast) });
export const BroadcastListQuery = z.object({
  /** true: archived only; all: both; false or absent: active ones only. */
  archived: z.enum(['true', 'false', 'all']).optional(),
});
/** GET, POST, PATCH: the item. */
export const BroadcastResponse = z.object({ item: Broadcast });
/** send, cancel, duplicate, DELETE: the item and the message to show. */
export const BroadcastActionResponse = z.object({ item: Broadcast, message: z.string() });

const name = z.string().trim().max(broadcastLimits.maxNameLength, broadcastMessages.nameTooLong);
const sendAt = z.iso
  .datetime({ offset: true, message: 'The send time must be an ISO date and time.' })
  .nullable();

/** What the server works out for a broadcast: accepted and ignored, so a client can send the item back as it got it. */
const broadcastIgnored = [
  'status',
  'createdBy',
  'createdAt',
  'updatedAt',
  'integrationId',
  'stats',
  'failure',
  'startedAt',
  'finishedAt',
  'archived',
  'pausedAt',
] as const;
const broadcastFields = {
  name: name.optional(),
  emailId: z.number().int().positive().nullable().optional(),
  audience: Audience.optional(),
  sendAt: sendAt.optional(),
  time: BroadcastTime.nullable().optional(),
  abTest: AbTestInput.nullable().optional(),
};

/** POST /v1/broadcasts: a broadcast body (a new one is a draft); an empty name becomes 'My Broadcast'. */
export const CreateBroadcastBody = entityBody(
  {
    ...broadcastFields,
    /** File the new broadcast in this folder (folderType broadcasts). */
    folderId: z.number().int().positive().optional(),
  },
  ['id', ...broadcastIgnored],
);
export type CreateBroadcastBody = z.infer<typeof CreateBroadcastBody>;

/**
 * PATCH /v1/broadcasts/{id}: any subset of the editable fields (draft or scheduled broadcasts only), or the whole
 * item as the client got it: an id must be the address's; the fields the entity only reports are ignored.
 */
export const UpdateBroadcastBody = entityBody(
  { id: z.number().int().optional(), ...broadcastFields },
  broadcastIgnored,
);
export type UpdateBroadcastBody = z.infer<typeof UpdateBroadcastBody>;

/** GET or POST /v1/broadcasts/{id}/status: the item with live stats, and the delivery rows by status. */
export const BroadcastProgress = z.object({
  total: z.number().int(),
  pending: z.number().int(),
  sending: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  canceled: z.number().int(),
  /** Held by a pause. */
  paused: z.number().int(),
  /** Pending but not due yet: waiting for the recipient's local time, quiet hours or a retry. */
  waiting: z.number().int(),
  /** When the last waiting delivery is due; null when none waits. */
  waitingUntil: z.string().nullable(),
  /**
   * The mail server cannot be reached (connect, TLS or login fails), while it lasts: the latest cause, since when,
   * the last attempt and how many attempts in a row failed; null when sending goes through.
   */
  problem: z
    .object({ message: z.string(), since: z.string(), lastAt: z.string(), failures: z.number().int() })
    .nullable(),
});
export type BroadcastProgress = z.infer<typeof BroadcastProgress>;
export const BroadcastStatusResponse = z.object({
  item: Broadcast,
  progress: BroadcastProgress,
  abTest: AbTestResults.nullable().optional(),
});

/** POST /v1/broadcasts/audience-count: everyone the audience holds, and who of them can receive the email now. */
export const AudienceCountBody = z.strictObject({
  audience: Audience,
  emailId: z.number().int().positive().nullable().optional(),
});
export const AudienceCount = z.object({
  total: z.number().int(),
  deliverable: z.number().int(),
  /** Waiting to confirm a double opt-in (docs/senders-and-consent.md): no marketing email until they do. */
  pendingConfirmation: z.number().int().optional(),
});
export type AudienceCount = z.infer<typeof AudienceCount>;
