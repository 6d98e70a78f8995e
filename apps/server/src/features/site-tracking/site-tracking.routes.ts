import { SiteCollectBody, SiteCollectResult, SiteTrackingStatus, UniqueFormEvents } from '@herald/contracts';
import { route, type RouteDef } from '../../http/route.ts';
import { seenOf } from '../consent/consent.queries.ts';
import { collect, siteScript, siteTrackingStatus, uniqueFormEvents } from './site-tracking.service.ts';

/** Site and form tracking (issue 18): the script, its collection endpoint, the forms seen and the settings page's state. */
export const siteTrackingRoutes: RouteDef[] = [
  route({
    method: 'GET',
    url: '/site.js',
    auth: 'public',
    tenant: false,
    summary: "Herald's site tracking script (add it to your site with your write key)",
    handler: async ({ reply }) => {
      await reply
        .header('content-type', 'application/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .header('access-control-allow-origin', '*')
        .send(siteScript);
    },
  }),
  route({
    method: 'POST',
    url: '/v1/site-tracking/collect',
    auth: 'public',
    csrf: false,
    anyBody: true,
    bodyLimit: 64 * 1024,
    summary:
      'Page views and form submissions from the site script (write key in the body; text/plain JSON, up to 64 kB)',
    body: SiteCollectBody,
    response: SiteCollectResult,
    example: {
      writeKey: 'wk_example',
      anonymousId: 'a1b2c3d4e5f6',
      events: [{ type: 'page', url: 'https://example.com/pricing' }],
    },
    handler: async ({ services, reply, request, body }) => {
      void reply.header('access-control-allow-origin', '*');
      return collect(services, body, seenOf(request));
    },
  }),
  route({
    method: 'GET',
    url: '/v1/settings/site-tracking/unique-form-events',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'Forms seen on the tracked site',
    response: UniqueFormEvents,
    handler: ({ db, session }) => uniqueFormEvents(db, session),
  }),
  route({
    method: 'GET',
    url: '/v1/settings/site-tracking',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'The site tracking snippet and what it has seen',
    response: SiteTrackingStatus,
    handler: ({ services, db, session }) => siteTrackingStatus(services, db, session),
  }),
];
