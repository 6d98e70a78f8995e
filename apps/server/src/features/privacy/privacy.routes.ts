import {
  BulkEraseBody,
  BulkEraseResponse,
  ErasePersonResponse,
  EventRetention,
  EventRetentionResponse,
  PersonExport,
  PersonIdParams,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import {
  bulkErase,
  erasePerson,
  exportPerson,
  getEventRetention,
  setEventRetention,
} from './privacy.service.ts';

/** A person's data exported or erased on request, and the account's event retention (docs/people.md). */
export const privacyRoutes = [
  route({
    method: 'POST',
    url: '/v1/people/:id/export',
    auth: 'session',
    scopes: ['people:export'],
    summary: 'Everything Herald holds about one person, as one JSON document (recorded in the audit log)',
    params: PersonIdParams,
    response: PersonExport,
    handler: async ({ services, db, session, params, audit, reply }) => {
      const document = await exportPerson(services.events, db, session, audit, params.id);
      void reply.header('content-disposition', `attachment; filename="person-${params.id}.json"`);
      return document;
    },
  }),
  route({
    method: 'POST',
    url: '/v1/people/:id/erase',
    auth: 'session',
    scopes: ['people:write'],
    summary:
      'Erase a person: their data everywhere, their events, runs ended and unsent mail canceled; the address stays suppressed as a hash',
    params: PersonIdParams,
    response: ErasePersonResponse,
    handler: ({ services, db, session, params, audit }) =>
      erasePerson(services.events, db, session, audit, params.id),
  }),
  route({
    method: 'POST',
    url: '/v1/people/erase',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Erase everyone a CSV of addresses names (one address a line, or a column headed "email")',
    body: BulkEraseBody,
    response: BulkEraseResponse,
    bodyLimit: 3_000_000,
    example: { csv: 'email\nerase-me@example.com\n' },
    handler: ({ services, db, session, body, audit }) =>
      bulkErase(services.events, db, session, audit, body.csv),
  }),
  route({
    method: 'GET',
    url: '/v1/privacy/event-retention',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'How many months events are kept (null: kept until deleted)',
    response: EventRetention,
    handler: ({ db, session }) => getEventRetention(db, session),
  }),
  route({
    method: 'PATCH',
    url: '/v1/privacy/event-retention',
    auth: 'session',
    scopes: ['account:write'],
    summary: 'Delete events older than this many months, every day (null turns it off)',
    body: EventRetention,
    response: EventRetentionResponse,
    example: { eventRetentionMonths: 24 },
    audit: { resource: 'account', before: ({ db, session }) => getEventRetention(db, session) },
    handler: ({ db, session, body }) => setEventRetention(db, session, body.eventRetentionMonths),
  }),
];
