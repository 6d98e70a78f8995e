import type { RouteDef } from '../../http/route.ts';

/** Routes of issue 18 (metrics). */
export const metricsRoutes: RouteDef[] = [];
