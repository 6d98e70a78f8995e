import { z } from 'zod';

/**
 * The Segment-compatible Tracking API (issue 54; docs/people.md, "Segment-compatible Tracking API"):
 * the shape of Segment's HTTP Tracking API and RudderStack's data plane, so that their SDKs, pointed at Herald with
 * the account's write key, send people, traits, events and page views as they are.
 */

/** Calls of one message, by the path's last segment (the browser library's one-letter paths too). */
export const trackingMessageTypes = ['identify', 'track', 'page', 'screen', 'group', 'alias'] as const;
export type TrackingMessageType = (typeof trackingMessageTypes)[number];

/** What an identify call's traits that name no person field become (an account setting). */
export const TrackingUnknownTraits = z.enum(['drop', 'field']);
export type TrackingUnknownTraits = z.infer<typeof TrackingUnknownTraits>;

/** Limits of Segment's own API (a client that keeps them never sees the 400s). */
export const trackingLimits = {
  messageBytes: 32 * 1024,
  batchBytes: 500 * 1024,
  batchMessages: 2500,
} as const;

const id = z
  .union([z.string().trim().max(200, 'An id is at most 200 characters.'), z.number().finite()])
  .transform((v) => String(v));
const record = z.record(z.string().max(200), z.unknown());
const instant = z.string().max(40, 'A time is an ISO 8601 text.');
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

/** One message as the libraries send it; fields Herald does not read are allowed and kept nowhere. */
export const TrackingMessage = z.looseObject({
  type: z
    .enum(trackingMessageTypes, 'type must be identify, track, page, screen, group or alias.')
    .optional(),
  messageId: optional(id),
  userId: optional(id),
  anonymousId: optional(id),
  previousId: optional(id),
  groupId: optional(id),
  event: optional(z.string().trim().max(200, 'An event name is at most 200 characters.')),
  name: optional(z.string().trim().max(200, 'A page name is at most 200 characters.')),
  category: optional(z.string().trim().max(200)),
  properties: optional(record),
  traits: optional(record),
  context: optional(record),
  timestamp: optional(instant),
  originalTimestamp: optional(instant),
  sentAt: optional(instant),
  writeKey: optional(z.string().max(200)),
});
export type TrackingMessage = z.infer<typeof TrackingMessage>;

/** POST /v1/batch: `batch`, or a bare list (the browser library's batching). */
export const TrackingBatch = z.looseObject({
  batch: z.array(z.unknown()).min(1, 'The batch is empty.'),
  sentAt: optional(instant),
  writeKey: optional(z.string().max(200)),
  context: optional(record),
});

export const TrackingApiResult = z.object({
  success: z.literal(true),
  /** Messages stored by this call. */
  accepted: z.number().int(),
  /** Messages whose messageId had been received before: nothing new stored, answered as a success. */
  duplicates: z.number().int(),
});
export type TrackingApiResult = z.infer<typeof TrackingApiResult>;

export const trackingApiMessages = {
  invalidJson: 'The request body is not valid JSON.',
  batchTooLarge: (kb: number) =>
    `A request is at most 500 KB; this one is ${kb} KB. Send fewer messages a batch.`,
  messageTooLarge: (index: number, kb: number) => `Message ${index} is ${kb} KB; a message is at most 32 KB.`,
  tooManyMessages: `A batch holds at most ${trackingLimits.batchMessages} messages.`,
  missingIdentity: (index: number) => `Message ${index} needs a userId or an anonymousId.`,
  missingEvent: (index: number) => `Message ${index} is a track call without an event name.`,
  missingPreviousId: (index: number) => `Message ${index} is an alias call without previousId and userId.`,
  missingGroupId: (index: number) => `Message ${index} is a group call without a groupId.`,
  badTime: (index: number, field: string) => `Message ${index}: ${field} is not an ISO 8601 time.`,
  invalidMessage: (index: number, detail: string) => `Message ${index}: ${detail}`,
  aliasKeptApart: 'Both people have an email address; they were kept apart.',
  notAnObject: 'Send a JSON object (a message, or { "batch": [...] }).',
  missingWriteKey:
    "Send the account's write key as the Basic auth user name (password empty) or as writeKey in the body.",
} as const;
