import { z } from 'zod';
import { InputFields } from './flow-input-fields.ts';

/**
 * Flows, steps and links (docs/flows.md: the flow, step, link, step catalogue entry and service;
 * the Steps, Links and Flows (integrations) calls). A flow is one trigger step followed by filter and action steps joined
 * by links. A step's configuration lives in `inputFields`, a tree of `{ properties: { name: { value } } }` as the
 * spec places the send step's email at `inputFields.properties.email.properties.id.value`; `decodeInputFields`
 * turns that tree into the plain object each operation's schema (flow-operation-configs.ts) describes,
 * `encodeInputFields` back.
 */

// A step's inputFields tree has a file of its own; the package exports it from here too.
export * from './flow-input-fields.ts';

/** Flow statuses (docs/flows.md). A new flow is 'deactivated-user': never switched on. */
export const flowStatuses = [
  'active',
  'deactivated-user',
  'deactivated',
  'deactivated-expired-auth',
] as const;
export type FlowStatus = (typeof flowStatuses)[number];
/** 'on' is accepted as a synonym of 'active' when written (docs/flows.md: "active (also written on)"). */
export const FlowStatusInput = z
  .enum([...flowStatuses, 'on'])
  .transform((s): FlowStatus => (s === 'on' ? 'active' : s));

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
export const filterOperations = [
  '/check-email-activity',
  '/check-field',
  '/in-segment',
  '/visited-page',
  '/has-tag',
] as const;
export const operationKeys = [...triggerOperations, ...actionOperations, ...filterOperations] as const;
export type TriggerOperation = (typeof triggerOperations)[number];
export type ActionOperation = (typeof actionOperations)[number];
export type FilterOperation = (typeof filterOperations)[number];
export type OperationKey = (typeof operationKeys)[number];

export const isOperationKey = (key: string): key is OperationKey =>
  (operationKeys as readonly string[]).includes(key);
export const stepTypeOf = (key: OperationKey): StepType =>
  (triggerOperations as readonly string[]).includes(key)
    ? 'trigger'
    : (filterOperations as readonly string[]).includes(key)
      ? 'filter'
      : 'action';

/** Link conditions of a filter step: its two branches. */
export const filterBranches = ['yes', 'no'] as const;
export type FilterBranch = (typeof filterBranches)[number];

// ---------------------------------------------------------------------------------------------------------------
// API shapes.

export const Coordinates = z.object({
  x: z.number().finite().min(-1e6).max(1e6),
  y: z.number().finite().min(-1e6).max(1e6),
});

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
export const FlowNames = z.object({
  integrations: z.array(z.object({ id: z.number().int(), name: z.string() })),
});
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
export const StepPeopleQuery = z.object({
  limit: z.coerce.number().int().min(1).max(flowLimits.stepPeopleLimit).default(20),
});
export const StepPeople = z.object({
  people: z.array(
    z.object({
      id: z.number().int(),
      email: z.string().nullable(),
      firstName: z.string().nullable(),
      lastName: z.string().nullable(),
      waitingSince: z.string(),
      wakeAt: z.string().nullable(),
    }),
  ),
});

export const LinkResponse = z.object({ link: Link });
export const LinkPairParams = z.object({
  source: z.coerce.number().int().positive(),
  target: z.coerce.number().int().positive(),
});

/** One entry of the step catalogue (docs/flows.md). */
export const CatalogueEntry = z.object({
  display: z.object({
    label: z.string(),
    icons: z.array(z.string()),
    size: z.enum(['sm', 'md', 'lg']),
    drawerSize: z.enum(['sm', 'md', 'lg', 'xl']),
  }),
  serviceId: z.string(),
  serviceIdForFiltering: z.string(),
  operationKey: z.string(),
  type: z.enum(stepTypes),
  mustConfig: z.object({
    configStep: z.boolean(),
    mapOutputFields: z.boolean(),
    mayMapOutputFields: z.boolean(),
  }),
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
