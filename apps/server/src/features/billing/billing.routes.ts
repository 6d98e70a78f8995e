import { BillingAnswer, PlanChoicesAnswer } from '@herald/contracts';
import { route, type RouteDef } from '../../http/route.ts';
import { getBilling, getPlanChoices } from './billing.service.ts';

/** Plans, trial and limits (issue 21): GET /v1/billing, GET /v1/billing/plans. */
export const billingRoutes: RouteDef[] = [
  route({
    method: 'GET',
    url: '/v1/billing',
    auth: 'session',
    scopes: ['billing:read'],
    summary: "The account's plan, trial, people limit and payment providers",
    response: BillingAnswer,
    handler: ({ services, db, session }) => getBilling(services, db, session),
  }),
  route({
    method: 'GET',
    url: '/v1/billing/plans',
    auth: 'session',
    scopes: ['billing:read'],
    summary: 'Plans the account may move to, grouped as the upgrade dialog shows them',
    response: PlanChoicesAnswer,
    handler: ({ services, db, session }) => getPlanChoices(services, db, session),
  }),
];
