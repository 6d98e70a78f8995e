import { z } from 'zod';

/** Messages of the audit log (docs/security.md, "Audit log"). */
export const auditLogMessages = {
  badCursor: 'That cursor is not one this API gave out: start again without it.',
  badActor: "Filter by a team member's user id or api-key.",
  badResourceType: 'A resource type is lowercase letters and dashes, like segments.',
  badDate: 'Give an ISO 8601 date and time, like 2026-12-01T00:00:00Z.',
  fromAfterTo: 'The start of the period (from) must be before its end (to).',
  couldNotLoad: "Couldn't load the audit log.",
  retentionSaved: 'Retention saved.',
} as const;

const filterFields = z.object({
  actor: z
    .string()
    .regex(/^(api-key|[1-9][0-9]{0,17})$/, auditLogMessages.badActor)
    .optional(),
  resourceType: z
    .string()
    .regex(/^[a-z][a-z-]{0,59}$/, auditLogMessages.badResourceType)
    .optional(),
  from: z.iso.datetime({ offset: true, message: auditLogMessages.badDate }).optional(),
  to: z.iso.datetime({ offset: true, message: auditLogMessages.badDate }).optional(),
});
const isOrdered = (f: { from?: string; to?: string }) =>
  !f.from || !f.to || Date.parse(f.from) <= Date.parse(f.to);

/** Filters shared by the list and its CSV export: who (a user id or api-key), what (resource type), when. */
export const AuditLogFilters = filterFields.refine(isOrdered, {
  message: auditLogMessages.fromAfterTo,
  path: ['from'],
});
export type AuditLogFilters = z.infer<typeof AuditLogFilters>;

export const AuditLogQuery = filterFields
  .extend({
    /** Opaque: the nextCursor of the previous page. */
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .refine(isOrdered, { message: auditLogMessages.fromAfterTo, path: ['from'] });
export type AuditLogQuery = z.infer<typeof AuditLogQuery>;

export const AuditLogEntry = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.object({
    kind: z.enum(['member', 'api_key', 'system']),
    userId: z.number().nullable(),
    label: z.string(),
  }),
  ip: z.string().nullable(),
  action: z.string(),
  resourceType: z.string(),
  resourceId: z.string().nullable(),
  /** The fields that changed: `{ name: { before, after } }`, either side absent when not known. */
  changes: z
    .record(z.string(), z.object({ before: z.unknown().optional(), after: z.unknown().optional() }))
    .nullable(),
});
export type AuditLogEntry = z.infer<typeof AuditLogEntry>;

export const AuditLogPage = z.object({
  entries: z.array(AuditLogEntry),
  /** Give it back as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type AuditLogPage = z.infer<typeof AuditLogPage>;

/** What the filters can choose from: the people and resource types the account's log names. */
export const AuditLogFacets = z.object({
  actors: z.array(z.object({ value: z.string(), label: z.string() })),
  resourceTypes: z.array(z.string()),
  retentionMonths: z.number(),
});
export type AuditLogFacets = z.infer<typeof AuditLogFacets>;

export const AuditLogRetentionBody = z.object({
  months: z
    .number()
    .int()
    .min(1, 'Keep entries at least 1 month.')
    .max(120, 'Keep entries at most 120 months.'),
});
export type AuditLogRetentionBody = z.infer<typeof AuditLogRetentionBody>;
