import type { RouteDef } from '../../http/route.ts';

/**
 * Routes of issue 18 (tracking) declared with route(): none. The open pixel and the click redirect take no
 * session, body or schema and are answered before Fastify routes a request (tracking.endpoints.ts).
 */
export const trackingRoutes: RouteDef[] = [];
