import {
  AuthServiceParams,
  CreateWebhookEndpointBody,
  IdParams,
  ServiceConnectionResponse,
  ServiceConnections,
  ServiceIdParams,
  ServiceOperationAnswer,
  ServiceOperationBody,
  ServiceOperationParams,
  ServiceSchemaAnswer,
  SlackCredentials,
  UpdateWebhookEndpointBody,
  WebhookDeliveryList,
  WebhookDeliveryParams,
  WebhookDeliveryQuery,
  WebhookDeliveryResponse,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointResponse,
  WebhookSecret,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { runServiceOperation, saveCredentials, serviceSchema } from './services-api.service.ts';
import { disconnectSlack, listConnections } from './slack.service.ts';
import { createEndpoint, deleteEndpoint, endpointSecret, listDeliveries, listEndpoints, retryDelivery, testEndpoint, updateEndpoint } from './webhook-endpoints.service.ts';

/** Connected apps need apps:write (docs/apps-and-webhooks.md has no apps:read); which services are connected needs a session only. */
const apps = ['apps:write'] as const;

/** Outgoing webhooks, service credentials and service operations (issue 20; docs/apps-and-webhooks.md). */
export const integrationsRoutes = [
  route({ method: 'GET', url: '/v1/webhook-endpoints', auth: 'session', scopes: [...apps], summary: "The account's outgoing webhook endpoints", response: WebhookEndpointList,
    handler: ({ db, session }) => listEndpoints(db, session) }),
  route({ method: 'POST', url: '/v1/webhook-endpoints', auth: 'session', scopes: [...apps], summary: 'Register an endpoint for some events; answers its signing secret once', body: CreateWebhookEndpointBody, response: WebhookEndpointCreated, status: 201,
    example: { url: 'https://example.com/herald-hook', events: ['person.created'] },
    handler: ({ db, services, session, body }) => createEndpoint(db, services, session, body) }),
  route({ method: 'PATCH', url: '/v1/webhook-endpoints/:id', auth: 'session', scopes: [...apps], summary: 'Change the URL, events or description, or switch the endpoint on or off', params: IdParams, body: UpdateWebhookEndpointBody, response: WebhookEndpointResponse,
    example: { enabled: false },
    handler: ({ db, services, session, params, body }) => updateEndpoint(db, services, session, params.id, body) }),
  route({ method: 'DELETE', url: '/v1/webhook-endpoints/:id', auth: 'session', scopes: [...apps], summary: 'Delete an endpoint with its waiting events and log', params: IdParams, response: WebhookEndpointResponse,
    handler: ({ db, session, params }) => deleteEndpoint(db, session, params.id) }),
  route({ method: 'GET', url: '/v1/webhook-endpoints/:id/secret', auth: 'session', scopes: [...apps], summary: "The endpoint's signing secret (Herald-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"t.body\">)", params: IdParams, response: WebhookSecret,
    handler: ({ db, session, params }) => endpointSecret(db, session, params.id) }),
  route({ method: 'GET', url: '/v1/webhook-endpoints/:id/deliveries', auth: 'session', scopes: [...apps], summary: "The endpoint's delivery log, newest first: status, attempts, answer code", params: IdParams, query: WebhookDeliveryQuery, response: WebhookDeliveryList,
    handler: ({ db, session, params, query }) => listDeliveries(db, session, params.id, query.limit) }),
  route({ method: 'POST', url: '/v1/webhook-endpoints/:id/test', auth: 'session', scopes: [...apps], summary: 'Send a test event to the endpoint now and answer the delivery (retried later when it failed)', params: IdParams, response: WebhookDeliveryResponse,
    handler: ({ db, services, session, params }) => testEndpoint(db, services, session, params.id) }),
  route({ method: 'POST', url: '/v1/webhook-endpoints/:id/deliveries/:deliveryId/retry', auth: 'session', scopes: [...apps], summary: 'Send a failed delivery again now (same events, same delivery id)', params: WebhookDeliveryParams, response: WebhookDeliveryResponse,
    handler: ({ db, session, params }) => retryDelivery(db, session, params.id, params.deliveryId) }),

  route({ method: 'GET', url: '/v1/services/connections', auth: 'session', summary: 'The connected services (Slack) and whether each still works', response: ServiceConnections,
    handler: ({ db, session }) => listConnections(db, session) }),
  route({ method: 'POST', url: '/v1/services/:id/refreshServiceResponseSchema', auth: 'session', scopes: [...apps], summary: "A service's schema: Slack's credentials, or what a Webhook trigger accepts from the app", params: ServiceIdParams, response: ServiceSchemaAnswer,
    handler: ({ params }) => Promise.resolve(serviceSchema(params.id)) }),
  route({ method: 'POST', url: '/v1/services/:serviceId/:operation', auth: 'session', scopes: [...apps], summary: "Run a service's operation with a config (slack/test posts a test message)", params: ServiceOperationParams, body: ServiceOperationBody, response: ServiceOperationAnswer,
    example: { config: { text: 'Hello from Herald' } },
    handler: ({ db, services, session, params, body }) => runServiceOperation(db, services, session, params.serviceId, params.operation, body.config) }),
  route({ method: 'POST', url: '/v1/auth/:service', auth: 'session', scopes: [...apps], summary: "Save a service's credentials (slack: { url } of an incoming webhook); errors empty_credentials / invalid_credentials", params: AuthServiceParams, body: SlackCredentials, response: ServiceConnectionResponse,
    example: { url: 'https://hooks.slack.com/services/T000/B000/XXXX' },
    handler: ({ db, services, session, params, body }) => saveCredentials(db, services, session, params.service, body) }),
  route({ method: 'DELETE', url: '/v1/auth/slack', auth: 'session', scopes: [...apps], summary: 'Disconnect Slack', response: ServiceConnectionResponse,
    handler: ({ db, session }) => disconnectSlack(db, session) }),
];
