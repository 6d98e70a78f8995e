import type { RouteDef } from '../../http/route.ts';

/** Routes of issue 18 (tracking). */
export const trackingRoutes: RouteDef[] = [];
