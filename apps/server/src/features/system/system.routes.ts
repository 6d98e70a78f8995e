import { LogBody, PublicConfig } from '@herald/contracts';
import { z } from 'zod';
import { checkReadiness } from '../../http/readiness.ts';
import { route } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';

/** What /readyz answers: each check's name with `ok` or what failed. */
const Readiness = z.object({ ok: z.boolean(), checks: z.record(z.string(), z.string()) });

/** Instance-level calls: public configuration, health, error reports from the web. */
export const systemRoutes = [
  route({
    method: 'GET',
    url: '/v1/config',
    auth: 'public',
    tenant: false,
    summary: 'What the web needs before sign-in',
    response: PublicConfig,
    handler: async ({ services: { config, google } }) => ({
      productName: 'Herald',
      googleClientId: google.isConfigured ? (config.google.clientId ?? null) : null,
      devMailbox: config.useDevMailbox,
      supportUrl: config.supportUrl ?? null,
      supportEmail: config.supportEmail ?? null,
    }),
  }),
  route({
    method: 'GET',
    url: '/v1/heartbeat',
    auth: 'public',
    tenant: false,
    summary: 'Health: the API and its database answer',
    response: z.object({ ok: z.literal(true) }),
    handler: async ({ services }) => {
      await services.db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
      return { ok: true as const };
    },
  }),
  // Probes of a load balancer or an orchestrator (docs/operations.md, "Health and metrics"); the metrics server
  // answers the same two paths for a worker-only process (http/metrics-server.ts).
  route({
    method: 'GET',
    url: '/healthz',
    auth: 'public',
    tenant: false,
    summary: 'Liveness: the process answers (the database is not asked)',
    response: z.object({ ok: z.literal(true) }),
    handler: async () => ({ ok: true as const }),
  }),
  route({
    method: 'GET',
    url: '/readyz',
    auth: 'public',
    tenant: false,
    summary:
      'Readiness: PostgreSQL answers and every registered check passes (503 naming what failed otherwise)',
    response: Readiness,
    handler: async ({ services, reply }) => {
      const readiness = await checkReadiness(services.pool);
      // Not ready: the same body with 503 (the route's status, 200, is its success).
      if (!readiness.ok) void reply.code(503);
      return readiness;
    },
  }),
  route({
    method: 'POST',
    url: '/v1/logging',
    auth: 'public',
    tenant: false,
    example: { message: 'Example error' },
    summary: 'Report an error seen in the web app',
    body: LogBody,
    anyBody: true,
    handler: async ({ services, body, request, session }) => {
      await enforceRateLimit(services.db, `logging:${request.ip}`, 60, 60);
      request.log.warn({ clientError: body, accountId: session?.accountId }, 'error reported by the web app');
    },
  }),
];
