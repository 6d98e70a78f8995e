import { z } from 'zod';

/**
 * Connected apps (docs/apps-and-webhooks.md: /apps, activeServices / serviceConfig, /auth/{service} and
 * /services): outgoing webhooks an account registers, Slack as a connected service, and the catalogue of third-party
 * apps with how each can be used with Herald today.
 */

// ---------------------------------------------------------------------------------------------------------------
// Outgoing webhooks.

/** Every state change an endpoint can subscribe to. */
export const webhookEventTypes = [
  'person.created',
  'person.updated',
  'person.unsubscribed',
  'tag.added',
  'tag.removed',
  'segment.entered',
  'segment.left',
  'email.sent',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'flow.entered',
  'flow.completed',
  'form.submitted',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

export const webhookEventLabels: Record<WebhookEventType, string> = {
  'person.created': 'Person created',
  'person.updated': 'Person updated',
  'person.unsubscribed': 'Person unsubscribed',
  'tag.added': 'Tag added',
  'tag.removed': 'Tag removed',
  'segment.entered': 'Entered a segment',
  'segment.left': 'Left a segment',
  'email.sent': 'Email sent',
  'email.opened': 'Email opened',
  'email.clicked': 'Email link clicked',
  'email.bounced': 'Email bounced',
  'flow.entered': 'Entered a flow',
  'flow.completed': 'Completed a flow',
  'form.submitted': 'Form submitted',
};

export const webhookLimits = {
  maxEndpoints: 20,
  /** Events in one request at most. */
  batchSize: 100,
  /** Attempts of one delivery before it counts as failed. */
  maxAttempts: 12,
  /** An endpoint is switched off once it has failed this many attempts in a row… */
  disableAfterFailures: 10,
  /** …over at least this many hours without one success. */
  disableAfterHours: 24,
  /** Finished deliveries stay in the log this many days. */
  logDays: 30,
} as const;

const EndpointUrl = z.string().trim().min(1, 'Enter the URL Herald should call.').max(2000);
const EventList = z
  .array(z.enum(webhookEventTypes))
  .min(1, 'Choose at least one event.')
  .max(webhookEventTypes.length);

export const WebhookEndpoint = z.object({
  id: z.number().int(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.enum(webhookEventTypes)),
  enabled: z.boolean(),
  /** Set when Herald switched the endpoint off after repeated failures (null when on, or switched off by a person). */
  disabledReason: z.string().nullable(),
  disabledAt: z.string().nullable(),
  /** Failed attempts since the last success, and when the first of them happened. */
  failuresInRow: z.number().int(),
  failingSince: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const CreateWebhookEndpointBody = z.strictObject({
  url: EndpointUrl,
  events: EventList,
  description: z.string().trim().max(200).nullable().optional(),
  enabled: z.boolean().optional(),
});
export const UpdateWebhookEndpointBody = z.strictObject({
  url: EndpointUrl.optional(),
  events: EventList.optional(),
  description: z.string().trim().max(200).nullable().optional(),
  enabled: z.boolean().optional(),
});
export const WebhookEndpointList = z.object({ endpoints: z.array(WebhookEndpoint) });
export const WebhookEndpointResponse = z.object({ endpoint: WebhookEndpoint });
/** POST answers the signing secret once with the new endpoint; GET …/secret shows it again. */
export const WebhookEndpointCreated = z.object({ endpoint: WebhookEndpoint, secret: z.string() });
export const WebhookSecret = z.object({ secret: z.string() });

export const webhookDeliveryStatuses = ['pending', 'sending', 'sent', 'failed'] as const;
export const WebhookDelivery = z.object({
  id: z.number().int(),
  endpointId: z.number().int(),
  status: z.enum(webhookDeliveryStatuses),
  attempts: z.number().int(),
  /** The receiver's HTTP status on the last attempt, null when none came. */
  responseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  eventCount: z.number().int(),
  eventTypes: z.array(z.string()),
  test: z.boolean(),
  createdAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  /** When the next attempt is due (pending deliveries). */
  nextAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;
export const WebhookDeliveryList = z.object({ deliveries: z.array(WebhookDelivery) });
export const WebhookDeliveryQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) });
export const WebhookDeliveryResponse = z.object({ delivery: WebhookDelivery });
export const WebhookDeliveryParams = z.object({
  id: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53),
  deliveryId: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53),
});

export const webhookMessages = {
  notFound: 'Webhook endpoint not found.',
  deliveryNotFound: 'Delivery not found.',
  notRetryable: 'Only a failed delivery, or one waiting for its next attempt, can be sent again.',
  retried: 'The delivery goes out again now.',
  tooMany: `An account can have at most ${webhookLimits.maxEndpoints} webhook endpoints.`,
  disabledAfterFailures: `Switched off by Herald: every call failed for ${webhookLimits.disableAfterHours} hours.`,
  alert: (url: string) =>
    `Herald switched off the webhook endpoint ${url}: every call failed for ${webhookLimits.disableAfterHours} hours. Fix the receiver, then switch it on again under Apps.`,
  loadError: "We couldn't retrieve your webhook endpoints.",
  saveError: "We couldn't save the webhook endpoint.",
  deleteError: "We couldn't delete the webhook endpoint.",
  logError: "We couldn't retrieve the delivery log.",
  testError: "We couldn't send the test event.",
  secretError: "We couldn't show the signing secret.",
  retryError: "We couldn't send the delivery again.",
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Services: Slack and the catalogue.

/** How a service is used: Herald's own steps, credentials saved with POST /v1/auth/{id}, or through webhook steps. */
export const serviceKinds = ['native', 'credentials', 'via-webhooks'] as const;
export type ServiceKind = (typeof serviceKinds)[number];

export const slackServiceId = 'slack';
/** Why a connection stopped working (docs/apps-and-webhooks.md). */
export const authReasons = ['no_credentials', 'expired', 'wrong_credentials'] as const;
export type AuthReason = (typeof authReasons)[number];

/** POST /v1/auth/slack: the incoming-webhook URL Slack gave (https://hooks.slack.com/services/…). */
export const SlackCredentials = z.object({ url: z.string().trim().max(2000).optional() });
export const AuthServiceParams = z.object({ service: z.string().min(1).max(60) });

export const ServiceConnection = z.object({
  serviceId: z.string(),
  status: z.enum(['active', 'failed']),
  /** Why the connection failed; null while it works. */
  authReason: z.enum(authReasons).nullable(),
  /** What the connection goes to, without its secret part (e.g. hooks.slack.com/services/T01…/B02…/••••). */
  label: z.string(),
  connectedAt: z.string(),
  failedAt: z.string().nullable(),
});
export type ServiceConnection = z.infer<typeof ServiceConnection>;
export const ServiceConnections = z.object({ connections: z.array(ServiceConnection) });
export const ServiceConnectionResponse = z.object({ connection: ServiceConnection, message: z.string() });

export const ServiceOperationParams = z.object({
  serviceId: z.string().min(1).max(60),
  operation: z.string().min(1).max(60),
});
export const ServiceOperationBody = z.strictObject({ config: z.record(z.string(), z.unknown()).optional() });
export const ServiceOperationAnswer = z.object({
  ok: z.boolean(),
  status: z.number().int().nullable(),
  message: z.string(),
});
export const ServiceIdParams = z.object({ id: z.string().min(1).max(60) });
export const ServiceSchemaAnswer = z.object({ schema: z.record(z.string(), z.unknown()) });

export const serviceMessages = {
  // docs/apps-and-webhooks.md, spelled exactly.
  retrieveFallback: "We couldn't retrieve services. ",
  saveConfigFallback: "We couldn't save service config. ",
  fieldsFallback: "We couldn't retrive service fields. ",
  loadError: 'Error while loading services.',
  credentialsSaveError: 'Error while saving your credentials.',
  // Placeholders of docs/apps-and-webhooks.md, as error codes.
  emptyCredentials: 'empty_credentials',
  invalidCredentials: 'invalid_credentials',
  unknownService: (id: string) => `Unknown service "${id}".`,
  unknownOperation: (id: string, operation: string) => `The service "${id}" has no operation "${operation}".`,
  noCredentialsNeeded: (name: string) =>
    `${name} does not connect with credentials in Herald. See how to use it on the Apps page.`,
  slackEmpty: 'Paste the incoming-webhook URL Slack gave you.',
  slackInvalid: 'Use a Slack incoming-webhook URL: https://hooks.slack.com/services/…',
  slackConnected: 'Slack connected.',
  slackDisconnected: 'Slack disconnected.',
  slackNotConnected: 'Connect Slack first.',
  slackNeededToActivate:
    'This flow has a “Send Slack message” step. Connect Slack under Apps before switching it on.',
  slackFailedToActivate:
    'Slack stopped accepting Herald’s messages. Reconnect Slack under Apps before switching this flow on.',
  slackTestText: 'Herald is connected to this channel. This is a test message.',
  slackTestSent: 'Test message sent to Slack.',
  slackRefused: (status: number | null) =>
    status === null ? 'Slack could not be reached.' : `Slack answered ${status}.`,
  flowStopped: (reason: AuthReason) =>
    reason === 'no_credentials'
      ? 'This flow sends Slack messages but Slack is not connected (no_credentials). Connect Slack under Apps, then switch the flow on again.'
      : reason === 'expired'
        ? 'Slack revoked the connection this flow posts to (expired). Reconnect Slack under Apps, then switch the flow on again.'
        : 'Slack no longer accepts the connection this flow posts to (wrong_credentials). Reconnect Slack under Apps, then switch the flow on again.',
  slackRefusedAlert: (reason: string) =>
    `Herald did not post to Slack: ${reason} Check the Slack webhook under Apps.`,
  flowStoppedAlert: (name: string, reason: AuthReason) =>
    `Herald switched off the flow "${name}": its Slack connection failed (${reason}).`,
} as const;
