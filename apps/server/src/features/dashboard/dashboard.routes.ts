import { DashboardResponse } from '@herald/contracts';
import { route, type RouteDef } from '../../http/route.ts';
import { getDashboard } from './dashboard.service.ts';

/** Routes of issue 18 (dashboard). The route needs no scope itself: each card is left out without its own. */
export const dashboardRoutes: RouteDef[] = [
  route({
    method: 'GET',
    url: '/v1/dashboard',
    auth: 'session',
    summary:
      "The account's key numbers: people and their growth (people:read), recent broadcasts with their rates (broadcasts:read), getting-started progress",
    response: DashboardResponse,
    handler: ({ db, session }) => getDashboard(db, session),
  }),
];
