import { LogBody, PublicConfig } from '@herald/contracts';
import { z } from 'zod';
import { route } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';

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
