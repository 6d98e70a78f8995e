import { z } from 'zod';
import { Flow, Link, flowLimits } from './flows.ts';

/** Messages and the flow, step and link calls of the flows API (docs/flows.md), beside the model in flows.ts. */

/** Messages of the flows area (docs/flows.md). */
export const flowMessages = {
  defaultName: 'Unnamed Flow',
  unknownStep: 'Unknown step',
  noDateTime: 'No date and time set for step.',
  timeInPast: 'The date and time of this trigger is in the past. Pick a time in the future.',
  activated: 'Flow activated.',
  deactivated: 'Flow deactivated.',
  copied: '✅ Flow copied.',
  unverifiedAddress: (address: string) => `Address ${address} has not been verified for sending email.`,
  noEmail: 'No email selected.',
  notFound: 'Flow not found.',
  stepNotFound: 'Step not found.',
  linkNotFound: 'Link not found.',
  noTrigger: 'Add a trigger to start this flow.',
  oneTrigger: 'A flow has one trigger. Remove the other trigger first.',
  triggerHasNoNext: 'Connect the trigger to a next step.',
  unconfigured: (label: string) => `Set up the step "${label}" before activating the flow.`,
  danglingBranch: (label: string, branch: string) =>
    `The "${branch}" branch of "${label}" leads nowhere. Connect it or remove the step.`,
  cycleWithoutWait:
    'This link would make a loop without a wait, so people would go round it forever. Add a wait step in the loop.',
  linkToOtherFlow: 'Both steps of a link must be in the same flow.',
  linkToTrigger: 'A link cannot lead into a trigger.',
  linkSelf: 'A step cannot link to itself.',
  linkExists: 'These steps are already linked.',
  unknownBranch: (branch: string) => `This step has no "${branch}" branch.`,
  branchTaken: (branch: string) => `The "${branch}" branch is already connected.`,
  tooManySteps: `A flow can have at most ${flowLimits.maxSteps} steps.`,
  inputTooLarge: 'This step’s settings are too large.',
  segmentGone: (id: number) => `Segment ${id} no longer exists. Choose another one.`,
  emailGone: (id: number) => `Email ${id} no longer exists. Choose another one.`,
  webhookPrivate: 'Webhooks cannot call private, loopback or link-local addresses.',
  webhookRefusedAlert: (flow: string, url: string, reason: string) =>
    `The flow "${flow}" did not call its webhook ${url}: ${reason} Change the step's URL.`,
  confirmActiveEdit: 'This flow is active. Confirm to change it while people are in it.',
  readOnly: 'This flow is shared read-only.',
  // Web toasts and fallbacks (docs/flows.md)
  createError: 'Error while creating flow.',
  loadError: 'Error while loading your flows.',
  saveError: 'Error while saving your flow.',
  stepLoadError: 'Error while loading your step.',
  linkCreateError: 'Error while creating link.',
  linkSaveError: 'Error while saving link.',
  linkDeleteError: 'Error while deleting link.',
  stepMetricsError: 'Error while retrieving step metrics.',
  segmentPreviewError: 'Error while loading preview for segment.',
  attachedError: "Couldn't retrieve resources attached to this flow.",
  listFallback: "We couldn't retrieve your flows.",
  oneFallback: "We couldn't retrieve your flow.",
  createFallback: "We couldn't create your flow.",
  updateFallback: "We couldn't update your flow.",
  shareError: "Couldn't prepare flow for sharing.",
  // Runs (the flow engine)
  stepRemoved: 'The step this person was waiting at was removed.',
  loopWithoutWait:
    'This person went round a loop of steps without a wait, so the flow stopped for them. Add a wait step in the loop.',
  waitTooLong: `A wait can be at most ${Math.round(flowLimits.maxWaitDays / 366)} years.`,
} as const;

/** PATCH /v1/integrations/{id}: the flow, and 'Flow activated.' / 'Flow deactivated.' when the status was set. */
export const FlowUpdateResponse = z.object({ integration: Flow, message: z.string().nullable() });
export const FlowEmails = z.object({
  emails: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      subject: z.string(),
      fromEmail: z.string(),
      fromName: z.string(),
    }),
  ),
});
export const FlowSegments = z.object({
  segments: z.array(z.object({ id: z.number().int(), name: z.string() })),
});
/** GET /v1/integrations/{id}/attached: what the flow's steps use (docs/flows.md: lists email, field, segment). */
export const FlowAttached = z.object({
  email: z.array(z.object({ id: z.number().int(), name: z.string() })),
  field: z.array(z.object({ name: z.string(), title: z.string() })),
  segment: z.array(z.object({ id: z.number().int(), name: z.string() })),
});
/** DELETE /v1/steps/{id}: a step of an active flow needs ?confirmActiveEdit=true. */
export const DeleteStepQuery = z.object({ confirmActiveEdit: z.stringbool().optional() });
export const StepDeleted = z.object({
  id: z.number().int(),
  flowId: z.number().int(),
  removedLinks: z.array(z.number().int()),
});
export const LinkDeleted = z.object({ link: Link });

/** Messages of the flows API beyond the spec's. */
export const flowApiMessages = {
  idMismatch: 'The flow id in the body does not match the address.',
  stepIdMismatch: 'The step id in the body does not match the address.',
  reentryDays: 'Choose after how many days a person may enter the flow again.',
  archivedNotActive: 'Restore this flow from the archive before activating it.',
  unknownService: (serviceId: string) => `Unknown service "${serviceId}".`,
  conditionRequired: 'Choose the branch this link leaves from.',
  shareInvalid: 'This share link is not valid or has expired.',
  nextTaken: 'This step already leads to a next step. Remove that link first.',
} as const;
export const FlowShareToken = z.object({ shareToken: z.string() });
/**
 * POST /v1/integrations?source={id}: copy that flow instead of creating an empty one; into `target-account` (one of
 * the user's accounts, by default the session's), reading the source with a share token (`read-only-auth`) if given.
 */
export const CreateFlowQuery = z.object({
  source: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53)
    .optional(),
  'target-account': z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53)
    .optional(),
  'read-only-auth': z.string().max(2000).optional(),
  /** Start from a recipe (GET /v1/recipes) instead: the flow with its steps and its emails as drafts. */
  recipe: z.string().trim().min(1).max(60).optional(),
});

// ---------------------------------------------------------------------------------------------------------------
// Running flows: the webhook trigger's signed inbound call (POST /v1/hooks/flows/{stepId}).

/**
 * Who the call is about: an email (a person is created when the account has none with it) or a person id. Signed
 * with the step's secret: the header `X-Herald-Signature: sha256=<hex HMAC-SHA256 of the body>`, or `?token=` as
 * shown with the step's URL.
 */
export const WebhookTriggerBody = z
  .object({ email: z.email().max(320).optional(), personId: z.number().int().positive().optional() })
  .loose()
  .refine((b) => b.email !== undefined || b.personId !== undefined, {
    message: 'Send an email or a personId in the JSON body.',
  });
export const WebhookTriggerParams = z.object({ stepId: z.coerce.number().int().positive() });
export const WebhookTriggerQuery = z.object({ token: z.string().max(200).optional() });
export const WebhookTriggerAnswer = z.object({
  personId: z.number().int(),
  /** False when the flow is off, or the person may not enter again (the flow's re-entry rule). */
  entered: z.boolean(),
});
export const flowRunMessages = {
  badSignature: 'The signature of this webhook call does not verify.',
  notWebhookTrigger: 'This step is not a webhook trigger.',
  personNotFound: 'No person with this id.',
  badBody: 'Send a JSON body with an email or a personId.',
} as const;
