import { IdParams, SimulateBody, SimulateResult } from '@herald/contracts';
import { route } from '../../http/route.ts';
import { simulateFlow } from './simulate.service.ts';

/** The dry-run simulator (issue 20): flows:read, since nothing is sent or written. */
export const flowSimulateRoutes = [
  route({
    method: 'POST',
    url: '/v1/integrations/:id/simulate',
    auth: 'session',
    scopes: ['flows:read'],
    summary:
      'A test run of the flow for a person (by email) or a made-up one (fields, tags, events) on a simulated clock: the path, each filter’s verdict and why, wake times, rendered emails; nothing is sent or written',
    params: IdParams,
    body: SimulateBody,
    response: SimulateResult,
    example: {
      person: { fields: { firstName: 'Ada', plan: 'pro' }, tags: ['trial'], timezone: 'Europe/Paris' },
      events: [{ name: 'purchase', at: '2026-03-02T10:00:00Z', properties: { amount: 30 } }],
      start: '2026-03-01T09:00:00Z',
    },
    audit: { isRead: true },
    handler: ({ db, services, session, params, body }) =>
      simulateFlow(db, services, session, params.id, body),
  }),
];
