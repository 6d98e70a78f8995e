import { z } from 'zod';
import {
  EmailActivityCondition,
  FieldCondition,
  PageVisitedCondition,
  emailActivities,
  urlMatches,
} from './segment-conditions.ts';
import { flowLimits, type OperationKey } from './flows.ts';

/** Decoded configuration of each operation (what `decodeInputFields(step.inputFields)` must satisfy to be set up). */

const id = z.number().int().positive();
const ref = z.strictObject({ id });
const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Use a time as HH:MM.');
const name = z.string().trim().min(1).max(200);
const weekday = z.number().int().min(0).max(6); // 0 = Sunday
const waitUnit = z.enum(['minutes', 'hours', 'days', 'weeks']);

export const WaitConfig = z.discriminatedUnion('mode', [
  /** Wait a duration (0 = go on at once). */
  z.strictObject({ mode: z.literal('duration'), amount: z.number().int().min(0), unit: waitUnit }),
  /** Wait until a date and time (ISO 8601 with offset); passed at once when it is already over. */
  z.strictObject({ mode: z.literal('until'), at: z.iso.datetime({ offset: true }) }),
  /** Wait until one of the weekdays, between from and to, in the person's time zone (the account's when unknown). */
  z.strictObject({
    mode: z.literal('weekday'),
    days: z.array(weekday).min(1).max(7),
    from: clock,
    to: clock,
  }),
]);
export type WaitConfig = z.infer<typeof WaitConfig>;

export const AbVariant = z.strictObject({
  name: z.string().trim().min(1).max(40),
  weight: z.number().int().min(1).max(100),
});

export const operationConfigs = {
  // Triggers
  '/entered-segment': z.strictObject({ segment: ref }),
  '/left-segment': z.strictObject({ segment: ref }),
  '/added-tag': z.strictObject({ tag: name }),
  '/removed-tag': z.strictObject({ tag: name }),
  '/event': z.strictObject({ name }),
  '/email-trigger': z.strictObject({ activity: z.enum(emailActivities), email: ref.optional() }),
  /** On the date in a date field, shifted by offsetDays, at time in the person's time zone. */
  '/dateFieldTrigger': z.strictObject({
    field: name,
    offsetDays: z.number().int().min(-365).max(365),
    time: clock,
  }),
  /** Every year on the anniversary of a date field, at time in the person's time zone. */
  '/annualTrigger': z.strictObject({ field: name, time: clock }),
  /** Once, at a date and time, for everyone in a segment (or everyone when no segment). */
  '/time': z.strictObject({ at: z.iso.datetime({ offset: true }), segment: ref.optional() }),
  '/page-visited-trigger': z.strictObject({
    url: z.string().trim().min(1).max(2000),
    match: z.enum(urlMatches),
  }),
  /** A form on the account's site, captured by site tracking (by its form key; any when absent). */
  '/site-form-submitted': z.strictObject({ form: z.string().trim().min(1).max(500).optional() }),
  /** A form submission sent through the ingest API (event "form submitted" with a form property). */
  '/submitted-form': z.strictObject({ form: z.string().trim().min(1).max(500).optional() }),
  /** A signed inbound URL per step; the secret is made by the server, never configured. */
  '/webhook-trigger': z.strictObject({}),
  // Actions
  '/send': z.strictObject({ email: ref }),
  '/delay': z.strictObject({ amount: z.number().int().min(0), unit: waitUnit }),
  '/delay-v2': z.strictObject({ wait: WaitConfig }),
  '/change-field': z.strictObject({
    field: name,
    value: z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]),
  }),
  '/add-tag': z.strictObject({ tag: name }),
  '/remove-tag': z.strictObject({ tag: name }),
  '/ab-test': z.strictObject({ variants: z.array(AbVariant).min(2).max(flowLimits.maxAbVariants) }),
  '/email-notification': z.strictObject({
    to: z.array(z.email()).min(1).max(20),
    subject: z.string().trim().min(1).max(200),
    body: z.string().max(5000),
  }),
  '/send-webhook': z.strictObject({ url: z.url({ protocol: /^https?$/ }).max(2000) }),
  '/lead-score': z.strictObject({ change: z.number().int().min(-1000).max(1000) }),
  '/archive-person': z.strictObject({}),
  '/end-flow': z.strictObject({}),
  /** A message to the account's connected Slack channel; `{{ person.x }}` is filled with the person's values. */
  '/slack-notification': z.strictObject({ text: z.string().trim().min(1).max(3000) }),
  // Filters (each a yes/no branch)
  '/check-email-activity': z.strictObject({ condition: EmailActivityCondition }),
  '/check-field': z.strictObject({ condition: FieldCondition }),
  '/in-segment': z.strictObject({ segment: ref }),
  '/visited-page': z.strictObject({ condition: PageVisitedCondition }),
  '/has-tag': z.strictObject({ tag: name }),
} satisfies Record<OperationKey, z.ZodType>;

export type OperationConfig<K extends OperationKey> = z.infer<(typeof operationConfigs)[K]>;
