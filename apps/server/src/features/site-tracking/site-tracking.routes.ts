import type { RouteDef } from '../../http/route.ts';

/** Routes of issue 18 (site-tracking). */
export const siteTrackingRoutes: RouteDef[] = [];
