import type { FastifyInstance } from 'fastify';
import { sessionFromApiKey } from '../features/accounts/account-admin.service.ts';
import { createTrackingEndpoints } from '../features/tracking/tracking.endpoints.ts';
import { buildHttpApp } from '../http/app.ts';
import type { RouteDef } from '../http/route.ts';
import type { Services } from '../services.ts';
import { connectFeatures } from './connect-features.ts';
import { allRoutes } from './routes.ts';

/**
 * The HTTP app with every feature in it: the routes, the tracking endpoints (answered before Fastify routes
 * anything: tracking.endpoints.ts) and API keys. The toolkit part is http/app.ts (docs/architecture.md).
 */
export async function buildApp(services: Services, routes: RouteDef[] = allRoutes): Promise<FastifyInstance> {
  connectFeatures();
  return buildHttpApp(services, { routes, endpoints: createTrackingEndpoints(services), sessionFromApiKey });
}
