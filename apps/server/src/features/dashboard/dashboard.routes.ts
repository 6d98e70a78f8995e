import type { RouteDef } from '../../http/route.ts';

/** Routes of issue 18 (dashboard). */
export const dashboardRoutes: RouteDef[] = [];
