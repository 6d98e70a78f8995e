import { z } from 'zod';

/** A person's data exported or erased on request, and the account's event retention (docs/people.md). */
export const privacyMessages = {
  personErased: 'Person erased. Their address is suppressed and will not be mailed again.',
  peopleErased: (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'person' : 'people'} erased.`,
  csvEmpty: 'The file names no email addresses. Give one address a line, or a column headed "email".',
  csvTooMany: (max: number) => `At most ${max.toLocaleString('en-US')} addresses at a time.`,
  csvUnreadable: (line: number, why: string) => `Line ${line} cannot be read: ${why}`,
  retentionSaved: 'Event retention saved.',
  eraseConsequences:
    'Erasing deletes the person, their events, email activity, segment memberships, preferences and webhook logs. ' +
    'Their flow runs end and unsent email to them is canceled. Campaign totals keep their counts. Their address ' +
    'is kept only as a one-way hash, so a later import, form or API call adds them suppressed. This cannot be undone.',
} as const;

/** The most addresses one bulk erase takes. */
export const bulkEraseMax = 10_000;

const Rows = z.array(z.record(z.string(), z.unknown()));

/**
 * Everything Herald holds about one person, one key per kind of record (docs/people.md, "Export and erase"). Rows are
 * as stored, dates as ISO text; `events` come from the event store, whichever it is.
 */
export const PersonExport = z.object({
  exportedAt: z.string(),
  person: z.record(z.string(), z.unknown()),
  events: Rows,
  deliveries: Rows,
  segments: Rows,
  flowRuns: Rows,
  flowConversions: Rows,
  flowWebhookCalls: Rows,
  outgoingWebhookEvents: Rows,
  communicationPreferences: Rows,
  suppression: Rows,
  suppressionHistory: Rows,
  transactionalSends: Rows,
  siteVisitors: Rows,
  /** The anonymous ids the Tracking API joined to the person (docs/people.md, "Segment-compatible Tracking API"). */
  trackingIdentities: Rows,
  /** Every subscribe, confirm, unsubscribe and preference change, with its source and proof (docs/senders-and-consent.md). */
  consentHistory: Rows,
  emailFirstEngagements: Rows,
});
export type PersonExport = z.infer<typeof PersonExport>;

/** What an erase did, beyond deleting (a person mid-flow or mid-send). */
export const EraseTally = z.object({
  erased: z.number().int(),
  flowRunsEnded: z.number().int(),
  deliveriesCanceled: z.number().int(),
  webhookCallsCanceled: z.number().int(),
});
export type EraseTally = z.infer<typeof EraseTally>;

export const ErasePersonResponse = EraseTally.extend({ message: z.string() });

export const BulkEraseBody = z.strictObject({
  csv: z.string().max(2_000_000, 'The file is larger than 2 MB.'),
});
export const BulkEraseResponse = EraseTally.extend({
  message: z.string(),
  /** Addresses of the file that name no person of the account (lower case, each once). */
  notFound: z.array(z.string()),
  /** Cells that are not an email address. */
  invalid: z.array(z.string()),
});
export type BulkEraseResponse = z.infer<typeof BulkEraseResponse>;

/** Delete events older than this many months (null: keep them). */
export const EventRetention = z.object({
  eventRetentionMonths: z
    .number()
    .int()
    .min(1, 'Keep events at least 1 month.')
    .max(120, 'Keep events at most 120 months.')
    .nullable(),
});
export const EventRetentionResponse = EventRetention.extend({ message: z.string().optional() });
