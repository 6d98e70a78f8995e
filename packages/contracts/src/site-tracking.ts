import { z } from 'zod';

/**
 * Site and form tracking (issue 18): what Herald's site script posts, the forms seen on the customer's site and
 * the state the settings page shows. Person fields are filled from a form through the account's
 * `formFieldMappings` (form id or form hash → form field → person field).
 */

const text = (max: number) => z.string().max(max, `Keep it under ${max} characters.`);
const pageUrl = z
  .url('Send the page address as a full URL.')
  .max(2048, 'Keep the page address under 2048 characters.');

/** One form control as the script read it at submission (passwords and card numbers never leave the page). */
export const SiteFormField = z.object({
  name: text(200).min(1),
  type: text(50).default('text'),
  value: text(5000),
});
export type SiteFormField = z.infer<typeof SiteFormField>;

/** The form element: its id and name attributes when it has them. */
export const SiteFormInfo = z.object({ id: text(200).optional(), name: text(200).optional() });

export const SitePageEvent = z.object({
  type: z.literal('page'),
  url: pageUrl,
  title: text(1000).optional(),
  referrer: text(2048).optional(),
});
export const SiteFormEvent = z.object({
  type: z.literal('form'),
  url: pageUrl,
  form: SiteFormInfo,
  fields: z.array(SiteFormField).max(200, 'A form can send at most 200 fields.'),
});
export const SiteEvent = z.discriminatedUnion(
  'type',
  [SitePageEvent, SiteFormEvent],
  'Each event is a page view or a form.',
);
export type SiteEvent = z.infer<typeof SiteEvent>;

/** POST /v1/site-tracking/collect, sent by the site script as text/plain JSON (no preflight). */
export const SiteCollectBody = z.strictObject({
  writeKey: z.string().min(1, 'Invalid write key.').max(200, 'Invalid write key.'),
  anonymousId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,64}$/, 'The anonymous id must be 8 to 64 letters, digits, - or _.'),
  /** The `hrld_id` an email click carried to the site. */
  identity: text(200).optional(),
  events: z.array(SiteEvent).min(1, 'Send at least one event.').max(20, 'Send at most 20 events at once.'),
});
export type SiteCollectBody = z.infer<typeof SiteCollectBody>;

export const SiteCollectResult = z.object({ accepted: z.number().int(), identified: z.boolean() });

/** A form seen on the site (docs/tracking-and-metrics.md): normalised url, data.form, form hash. */
export const FormTrackingEntry = z.object({
  url: z.string(),
  data: z.object({
    form: z.object({ id: z.string().nullable(), name: z.string().nullable(), fields: z.array(z.string()) }),
  }),
  hash: z.string(),
  /** The key of its entry in formFieldMappings: the form's id when it has one, else its hash. */
  key: z.string(),
  submissions: z.number().int(),
  lastSeenAt: z.string(),
});
export type FormTrackingEntry = z.infer<typeof FormTrackingEntry>;
export const UniqueFormEvents = z.object({ events: z.array(FormTrackingEntry) });

/** GET /v1/settings/site-tracking: what the settings page needs. */
export const SiteTrackingStatus = z.object({
  writeKey: z.string(),
  scriptUrl: z.string(),
  snippet: z.string(),
  visitors: z.number().int(),
  identifiedVisitors: z.number().int(),
  pageViews: z.number().int(),
  lastSeenAt: z.string().nullable(),
  forms: z.number().int(),
});
export type SiteTrackingStatus = z.infer<typeof SiteTrackingStatus>;

export const siteTrackingMessages = {
  formSaved: '✅ Form saved.',
  formRemoved: '✅ Form removed.',
  formSaveError: 'Error while saving your form.',
  formRemoveError: 'Error while removing your form.',
};
