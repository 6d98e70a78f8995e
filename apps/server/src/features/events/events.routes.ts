import {
  EventPage,
  EventPageQuery,
  IngestBatchBody,
  IngestMessage,
  IngestResult,
  PersonIdParams,
} from '@herald/contracts';
import { z } from 'zod';
import { route } from '../../http/route.ts';
import { seenOf } from '../consent/consent.queries.ts';
import { ingestAccount, listEvents, personMetrics } from './events.service.ts';
import { ingest } from './ingest-groups.ts';

const writeKeyOf = (headers: Record<string, string | string[] | undefined>) => {
  const value = headers['x-write-key'];
  return typeof value === 'string' ? value : undefined;
};

/** Event ingestion (write key or API key; callable from any site) and the people timelines. */
export const eventsRoutes = [
  route({
    method: 'POST',
    url: '/v1/ingest/batch',
    auth: 'public',
    csrf: false,
    summary: 'Identify people and track events, up to 1000 per call (X-Write-Key or API key)',
    body: IngestBatchBody,
    response: IngestResult,
    example: { batch: [{ type: 'track', email: 'ada@example.com', name: 'Signed up' }] },
    handler: async ({ services, session, request, reply, body }) => {
      void reply.header('access-control-allow-origin', '*');
      return ingest(
        services,
        await ingestAccount(services, session, writeKeyOf(request.headers)),
        body.batch,
        seenOf(request),
      );
    },
  }),
  route({
    method: 'POST',
    url: '/v1/ingest',
    auth: 'public',
    csrf: false,
    summary: 'Identify a person, track an event or record a page view (X-Write-Key or API key)',
    body: IngestMessage,
    response: IngestResult,
    example: { type: 'page', anonymousId: 'a1b2c3', url: 'https://example.com/pricing' },
    handler: async ({ services, session, request, reply, body }) => {
      void reply.header('access-control-allow-origin', '*');
      return ingest(
        services,
        await ingestAccount(services, session, writeKeyOf(request.headers)),
        [body],
        seenOf(request),
      );
    },
  }),
  route({
    method: 'GET',
    url: '/v1/people/all/events',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'Events of the account, newest first',
    query: EventPageQuery,
    response: EventPage,
    handler: ({ services, db, session, query }) => listEvents(services.events, db, session, 'all', query),
  }),
  route({
    method: 'GET',
    url: '/v1/people/:id/events',
    auth: 'session',
    scopes: ['people:read'],
    summary: "A person's timeline, newest first",
    params: PersonIdParams,
    query: EventPageQuery,
    response: EventPage,
    handler: ({ services, db, session, params, query }) =>
      listEvents(services.events, db, session, params.id, query),
  }),
  route({
    method: 'GET',
    url: '/v1/people/metrics/:id',
    auth: 'session',
    scopes: ['people:read'],
    summary: "A person's email activity counts",
    params: PersonIdParams,
    response: z.object({ metrics: z.record(z.string(), z.number().int()) }),
    handler: ({ services, db, session, params }) => personMetrics(services.events, db, session, params.id),
  }),
];
