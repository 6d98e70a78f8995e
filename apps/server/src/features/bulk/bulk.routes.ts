import {
  BulkAccepted,
  BulkAction,
  BulkArchiveBody,
  BulkExportBody,
  BulkTagBody,
  IdParams,
  RestoreBody,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { exportFile, getBulkAction, startBulkAction } from './bulk.service.ts';

/** Bulk work on people, run as background jobs (docs/people.md). */
export const bulkRoutes = [
  route({
    method: 'POST',
    url: '/v1/tags/bulk',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Tag people (ids or a segment) in the background',
    body: BulkTagBody,
    response: BulkAccepted,
    status: 202,
    example: { tag: 'customer', people: [1, 2, 3] },
    handler: ({ db, session, body }) => startBulkAction(db, session, 'tag', body),
  }),
  route({
    method: 'POST',
    url: '/v1/people/export',
    auth: 'session',
    scopes: ['people:export'],
    summary: 'Export people to CSV; a download link is emailed',
    body: BulkExportBody,
    response: BulkAccepted,
    status: 202,
    example: { notifyEmail: 'me@example.com', people: [1, 2, 3] },
    handler: ({ db, session, body }) => startBulkAction(db, session, 'export', body),
  }),
  route({
    method: 'DELETE',
    url: '/v1/people/bulk',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Archive people in the background',
    body: BulkArchiveBody,
    response: BulkAccepted,
    status: 202,
    example: { people: [1, 2, 3] },
    handler: ({ db, session, body }) => startBulkAction(db, session, 'archive', body),
  }),
  route({
    method: 'POST',
    url: '/v1/people/restore',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Restore archived people in the background',
    body: RestoreBody,
    response: BulkAccepted,
    status: 202,
    example: { people: [1, 2, 3] },
    handler: ({ db, session, body }) => startBulkAction(db, session, 'restore', body),
  }),
  route({
    method: 'GET',
    url: '/v1/bulk-actions/:id',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'Progress of a bulk action',
    params: IdParams,
    response: BulkAction,
    handler: ({ db, session, params }) => getBulkAction(db, session, params.id),
  }),
  route({
    method: 'GET',
    url: '/v1/people/exports/:id/download',
    auth: 'session',
    scopes: ['people:export'],
    summary: 'Download an export (CSV)',
    params: IdParams,
    handler: async ({ services, db, session, params, reply }) => {
      const data = await exportFile(services, db, session, params.id);
      await reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="people-export-${params.id}.csv"`)
        .send(data);
    },
  }),
];
