import { CheckoutAnswer, CheckoutBody, InvoicesAnswer, type CheckoutProvider } from '@herald/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { route, type RouteDef } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { listInvoices, startCheckout } from './billing-providers.service.ts';
import { receiveBillingWebhook } from './billing-webhooks.service.ts';

const WebhookAnswer = z.object({ received: z.boolean(), duplicate: z.boolean(), outcome: z.string() });

const receive = (services: Services, request: FastifyRequest, provider: CheckoutProvider) =>
  receiveBillingWebhook(
    services,
    provider,
    { rawBody: typeof request.body === 'string' ? request.body : '', headers: request.headers },
    request.log,
  );

/** Billing providers (issue 21): checkout, invoices, and the Chargebee and PayPal webhooks. */
export const billingProvidersRoutes: RouteDef[] = [
  route({
    method: 'POST',
    url: '/v1/billing/checkout',
    auth: 'session',
    scopes: ['billing:write'],
    body: CheckoutBody,
    response: CheckoutAnswer,
    example: { plan: 'growth-monthly-v1', peopleUpperLimit: 2000, provider: 'chargebee' },
    summary:
      "Start paying for a plan: the provider's checkout page (Chargebee hosted page or PayPal approval) to send the browser to",
    handler: ({ services, db, session, body, request }) =>
      startCheckout(services.config, db, session.accountId, body, request.log),
  }),
  route({
    method: 'GET',
    url: '/v1/billing/invoices',
    auth: 'session',
    scopes: ['billing:read'],
    response: InvoicesAnswer,
    summary: "The account's invoices as the payment providers keep them, newest first",
    handler: ({ services, db, session, request }) =>
      listInvoices(services.config, db, session.accountId, request.log),
  }),
  route({
    method: 'POST',
    url: '/v1/hooks/billing/chargebee',
    auth: 'public',
    csrf: false,
    rawBody: true,
    tenant: false,
    response: WebhookAnswer,
    bodyLimit: 512 * 1024,
    summary:
      'Chargebee webhook events (HTTP basic auth from CHARGEBEE_WEBHOOK_AUTH); each event id is applied once',
    handler: ({ services, request }) => receive(services, request, 'chargebee'),
  }),
  route({
    method: 'POST',
    url: '/v1/hooks/billing/paypal',
    auth: 'public',
    csrf: false,
    rawBody: true,
    tenant: false,
    response: WebhookAnswer,
    bodyLimit: 512 * 1024,
    summary:
      "PayPal webhook events (signature checked by PayPal's verify-webhook-signature with PAYPAL_WEBHOOK_ID); each event id is applied once",
    handler: ({ services, request }) => receive(services, request, 'paypal'),
  }),
];
