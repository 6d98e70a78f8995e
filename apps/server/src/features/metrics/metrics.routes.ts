import { EmailStatsQuery, EmailStatsResponse } from '@herald/contracts';
import { route, type RouteDef } from '../../http/route.ts';
import { emailStats, metricsReader } from './metrics.service.ts';

/** Email metrics (issue 18), read from the rollups: metrics.jobs.ts keeps PostgreSQL's current, ClickHouse's views keep its own. */
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
    handler: ({ db, services, session, query }) =>
      emailStats(db, session, query, metricsReader(services.events, db)),
  }),
];
