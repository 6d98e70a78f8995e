import { EmailStatsQuery, EmailStatsResponse } from '@herald/contracts';
import { route, type RouteDef } from '../../http/route.ts';
import { emailStats } from './metrics.service.ts';

/** Email metrics (issue 18), read from the rollups metrics.jobs.ts keeps current. */
export const metricsRoutes: RouteDef[] = [
  route({
    method: 'GET',
    url: '/v1/emails/stats',
    auth: 'session',
    scopes: ['emailMetrics:read'],
    summary:
      'Email figures over a preset period or dates, bucketed by hour, day or week in the time zone asked for; by flow, email, broadcast, step or A/B variant',
    query: EmailStatsQuery,
    response: EmailStatsResponse,
    handler: ({ db, session, query }) => emailStats(db, session, query),
  }),
];
