import type { RouteDef } from '../../http/route.ts';

/** Plans, trial and limits (issue 21): GET /v1/billing, GET /v1/billing/plans. */
export const billingRoutes: RouteDef[] = [];
