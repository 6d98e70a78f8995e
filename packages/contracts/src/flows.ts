import { z } from 'zod';
import { EmailActivityCondition, FieldCondition, PageVisitedCondition, emailActivities, urlMatches } from './segments.ts';

/**
 * Flows, steps and links (docs/flows.md: the flow, step, link, step catalogue entry and service;
 * the Steps, Links and Flows (integrations) calls). A flow is one trigger step followed by filter and action steps joined
 * by links. A step's configuration lives in `inputFields`, a tree of `{ properties: { name: { value } } }` as the
 * spec places the send step's email at `inputFields.properties.email.properties.id.value`; `decodeInputFields`
 * turns that tree into the plain object each operation's schema below describes, `encodeInputFields` back.
 */

/** Flow statuses (docs/flows.md). A new flow is 'deactivated-user': never switched on. */
export const flowStatuses = ['active', 'deactivated-user', 'deactivated', 'deactivated-expired-auth'] as const;
export type FlowStatus = (typeof flowStatuses)[number];
/** 'on' is accepted as a synonym of 'active' when written (docs/flows.md: "active (also written on)"). */
export const FlowStatusInput = z.enum([...flowStatuses, 'on']).transform((s): FlowStatus => (s === 'on' ? 'active' : s));

export const stepTypes = ['trigger', 'filter', 'action'] as const;
export type StepType = (typeof stepTypes)[number];

/** The service every native step belongs to (`GET /v1/services`). */
export const nativeServiceId = 'herald';

export const flowLimits = {
  maxNameLength: 200,
  maxSteps: 200,
  /** Serialised inputFields of one step, in characters. */
  maxInputFieldsChars: 20_000,
  maxLinksPerStep: 10,
  /** Longest wait: 5 years; a wait is at least one minute (or 0 for "go on at once"). */
  maxWaitDays: 5 * 366,
  maxAbVariants: 5,
  /** Re-entry after N days: 1..3650. */
  maxReentryDays: 3650,
  stepPeopleLimit: 100,
  duplicateOffset: 20,
} as const;

/** Every native operation key (docs/flows.md, plus the native actions and filters). */
export const triggerOperations = [
  '/entered-segment',
  '/left-segment',
  '/added-tag',
  '/removed-tag',
  '/event',
  '/email-trigger',
  '/dateFieldTrigger',
  '/annualTrigger',
  '/time',
  '/page-visited-trigger',
  '/site-form-submitted',
  '/submitted-form',
  '/webhook-trigger',
] as const;
export const actionOperations = [
  '/send',
  '/delay',
  '/delay-v2',
  '/change-field',
  '/add-tag',
  '/remove-tag',
  '/ab-test',
  '/email-notification',
  '/send-webhook',
  '/lead-score',
  '/archive-person',
  '/end-flow',
  '/slack-notification',
] as const;
export const filterOperations = ['/check-email-activity', '/check-field', '/in-segment', '/visited-page', '/has-tag'] as const;
export const operationKeys = [...triggerOperations, ...actionOperations, ...filterOperations] as const;
export type TriggerOperation = (typeof triggerOperations)[number];
export type ActionOperation = (typeof actionOperations)[number];
export type FilterOperation = (typeof filterOperations)[number];
export type OperationKey = (typeof operationKeys)[number];

export const isOperationKey = (key: string): key is OperationKey => (operationKeys as readonly string[]).includes(key);
export const stepTypeOf = (key: OperationKey): StepType =>
  (triggerOperations as readonly string[]).includes(key) ? 'trigger' : (filterOperations as readonly string[]).includes(key) ? 'filter' : 'action';

/** Link conditions of a filter step: its two branches. */
export const filterBranches = ['yes', 'no'] as const;
export type FilterBranch = (typeof filterBranches)[number];

// ---------------------------------------------------------------------------------------------------------------
// Decoded configuration of each operation (what `decodeInputFields(step.inputFields)` must satisfy to be set up).

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
  z.strictObject({ mode: z.literal('weekday'), days: z.array(weekday).min(1).max(7), from: clock, to: clock }),
]);
export type WaitConfig = z.infer<typeof WaitConfig>;

export const AbVariant = z.strictObject({ name: z.string().trim().min(1).max(40), weight: z.number().int().min(1).max(100) });

export const operationConfigs = {
  // Triggers
  '/entered-segment': z.strictObject({ segment: ref }),
  '/left-segment': z.strictObject({ segment: ref }),
  '/added-tag': z.strictObject({ tag: name }),
  '/removed-tag': z.strictObject({ tag: name }),
  '/event': z.strictObject({ name }),
  '/email-trigger': z.strictObject({ activity: z.enum(emailActivities), email: ref.optional() }),
  /** On the date in a date field, shifted by offsetDays, at time in the person's time zone. */
  '/dateFieldTrigger': z.strictObject({ field: name, offsetDays: z.number().int().min(-365).max(365), time: clock }),
  /** Every year on the anniversary of a date field, at time in the person's time zone. */
  '/annualTrigger': z.strictObject({ field: name, time: clock }),
  /** Once, at a date and time, for everyone in a segment (or everyone when no segment). */
  '/time': z.strictObject({ at: z.iso.datetime({ offset: true }), segment: ref.optional() }),
  '/page-visited-trigger': z.strictObject({ url: z.string().trim().min(1).max(2000), match: z.enum(urlMatches) }),
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
  '/change-field': z.strictObject({ field: name, value: z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]) }),
  '/add-tag': z.strictObject({ tag: name }),
  '/remove-tag': z.strictObject({ tag: name }),
  '/ab-test': z.strictObject({ variants: z.array(AbVariant).min(2).max(flowLimits.maxAbVariants) }),
  '/email-notification': z.strictObject({ to: z.array(z.email()).min(1).max(20), subject: z.string().trim().min(1).max(200), body: z.string().max(5000) }),
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

// ---------------------------------------------------------------------------------------------------------------
// inputFields: the spec's tree of properties and values.

export type InputField = { value?: unknown; properties?: Record<string, InputField> };
export type InputFields = { properties?: Record<string, InputField> };
export const InputFields: z.ZodType<InputFields> = z.lazy(() => z.object({ properties: z.record(z.string().max(100), InputFieldSchema).optional() }).loose());
const InputFieldSchema: z.ZodType<InputField> = z.lazy(() => z.object({ value: z.unknown().optional(), properties: z.record(z.string().max(100), InputFieldSchema).optional() }).loose());

/** `{ properties: { email: { properties: { id: { value: 7 } } } } }` → `{ email: { id: 7 } }`. */
export function decodeInputFields(fields: InputFields | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields?.properties ?? {})) {
    if (field.properties) out[key] = decodeInputFields(field);
    else if (field.value !== undefined) out[key] = field.value;
  }
  return out;
}

/** The inverse of decodeInputFields: plain objects become nested properties, everything else a value (arrays too). */
export function encodeInputFields(config: Record<string, unknown>): InputFields {
  const properties: Record<string, InputField> = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    properties[key] = value !== null && typeof value === 'object' && !Array.isArray(value) ? encodeInputFields(value as Record<string, unknown>) : { value };
  }
  return { properties };
}

/** The email of a send step (docs/flows.md), or null. */
export function sendStepEmailId(fields: InputFields | null | undefined): number | null {
  const v = fields?.properties?.email?.properties?.id?.value;
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;
}

// ---------------------------------------------------------------------------------------------------------------
// API shapes.

export const Coordinates = z.object({ x: z.number().finite().min(-1e6).max(1e6), y: z.number().finite().min(-1e6).max(1e6) });

/** Figures shown on a step (people now at it, and for a send step its email's figures). */
export const StepMetrics = z.object({
  sent: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  uniqueOpened: z.number().int(),
  uniqueClicked: z.number().int(),
});

export const Step = z.object({
  id: z.number().int(),
  flowId: z.number().int(),
  type: z.enum(stepTypes),
  serviceId: z.string(),
  operationKey: z.string(),
  inputFields: InputFields,
  outputFields: z.record(z.string(), z.unknown()).nullable(),
  coordinates: Coordinates,
  position: z.number().int().nullable(),
  /** Link conditions this step offers: ['yes','no'] for filters, the variant names for an A/B test, null otherwise. */
  linkConditions: z.array(z.string()).nullable(),
  /** True while the step lacks a configuration its operation requires. */
  mustConfig: z.boolean(),
  /** Why the step is not set up (or its segment / email is gone), shown on the node; null when fine. */
  problem: z.string().nullable(),
  /** People waiting at or passing through this step now. */
  peopleCount: z.number().int(),
  /** The step's flow id as text: the spec's step names its flow (an "integration") by it too. */
  integrationId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Step = z.infer<typeof Step>;

export const Link = z.object({
  id: z.number().int(),
  flowId: z.number().int(),
  source: z.number().int(),
  target: z.number().int(),
  /** The branch of the source step this link leaves from ('yes' / 'no', or an A/B variant name); null for plain steps. */
  condition: z.string().nullable(),
});
export type Link = z.infer<typeof Link>;

export const reentryModes = ['once', 'after-days'] as const;

export const Flow = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(flowStatuses),
  archived: z.boolean(),
  /** Map keyed by step id (docs/flows.md). */
  steps: z.record(z.string(), Step),
  links: z.array(Link),
  /** Whether a person may enter again: once per flow, or again after reentryDays since their last entry. */
  reentry: z.enum(reentryModes),
  reentryDays: z.number().int().nullable(),
  recipe: z.string().nullable(),
  /** Problems that block activation (or paused an active flow's step), for the flow's warning banner. */
  warnings: z.array(z.string()),
  lastSaved: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Flow = z.infer<typeof Flow>;

export const FlowResponse = z.object({ integration: Flow });
export const FlowList = z.object({ integrations: z.array(Flow) });
export const FlowNames = z.object({ integrations: z.array(z.object({ id: z.number().int(), name: z.string() })) });
export const FlowPeopleCounts = z.object({
  /** People at each step now, keyed by step id. */
  steps: z.record(z.string(), z.number().int()),
  /** People in the flow now (waiting somewhere), and all who ever entered. */
  active: z.number().int(),
  entered: z.number().int(),
  completed: z.number().int(),
});

export const FlowListQuery = z.object({ archived: z.stringbool().optional() });
export const ReadOnlyAuthQuery = z.object({ 'read-only-auth': z.string().max(2000).optional() });

export const StepResponse = z.object({ step: Step, tempId: z.union([z.string(), z.number()]).optional() });
export const StepQuery = z.object({ refresh: z.stringbool().default(true) });
export const StepPeopleQuery = z.object({ limit: z.coerce.number().int().min(1).max(flowLimits.stepPeopleLimit).default(20) });
export const StepPeople = z.object({
  people: z.array(z.object({ id: z.number().int(), email: z.string().nullable(), firstName: z.string().nullable(), lastName: z.string().nullable(), waitingSince: z.string(), wakeAt: z.string().nullable() })),
});

export const LinkResponse = z.object({ link: Link });
export const LinkPairParams = z.object({ source: z.coerce.number().int().positive(), target: z.coerce.number().int().positive() });

/** One entry of the step catalogue (docs/flows.md). */
export const CatalogueEntry = z.object({
  display: z.object({ label: z.string(), icons: z.array(z.string()), size: z.enum(['sm', 'md', 'lg']), drawerSize: z.enum(['sm', 'md', 'lg', 'xl']) }),
  serviceId: z.string(),
  serviceIdForFiltering: z.string(),
  operationKey: z.string(),
  type: z.enum(stepTypes),
  mustConfig: z.object({ configStep: z.boolean(), mapOutputFields: z.boolean(), mayMapOutputFields: z.boolean() }),
  helpDocs: z.string().nullable(),
  isHidden: z.boolean(),
  /** One line saying what the step does (the catalogue popup's subtitle). */
  description: z.string(),
  /** JSON Schema of the decoded inputFields (from operationConfigs). */
  inputSchema: z.record(z.string(), z.unknown()),
});
export type CatalogueEntry = z.infer<typeof CatalogueEntry>;
export const Service = z.object({
  id: z.string(),
  name: z.string(),
  humanName: z.string(),
  schema: z.record(z.string(), z.unknown()),
  /** Issue 20: native steps, credentials saved with POST /v1/auth/{id}, or used through webhook steps. */
  kind: z.enum(['native', 'credentials', 'via-webhooks']),
  category: z.string(),
  description: z.string(),
  /** What it takes to use the service with Herald today, in plain words. */
  howToConnect: z.array(z.string()),
  operations: z.array(z.string()),
});
export const ServicesResponse = z.object({ services: z.array(Service), steps: z.array(CatalogueEntry) });

// The settings tree is recursive: named components in the OpenAPI document instead of generated ids.
z.globalRegistry.add(InputFields, { id: 'FlowStepInputFields' });
z.globalRegistry.add(InputFieldSchema, { id: 'FlowStepInputField' });
