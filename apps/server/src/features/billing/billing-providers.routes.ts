import type { RouteDef } from '../../http/route.ts';

/** Billing providers (issue 21): checkout, invoices, and the Chargebee and PayPal webhooks. */
export const billingProvidersRoutes: RouteDef[] = [];
