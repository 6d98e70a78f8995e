import {
  CreateImportBody,
  IdParams,
  Import,
  ImportCreated,
  ImportList,
  ImportUploadUrl,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { createImport, failuresCsv, getImport, importUploadUrl, listImports } from './imports.service.ts';

/** CSV imports (docs/imports.md). */
export const importsRoutes = [
  route({
    method: 'POST',
    url: '/v1/imports/upload-url',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Signed URL to PUT the CSV to',
    response: ImportUploadUrl,
    handler: async ({ services, session }) => importUploadUrl(services, session),
  }),
  route({
    method: 'POST',
    url: '/v1/imports',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Start importing an uploaded CSV',
    body: CreateImportBody,
    response: ImportCreated,
    status: 201,
    example: {
      name: 'Webinar leads',
      peopleFileKey: 'imports/1/abc.csv',
      numPeople: 2,
      fieldMapping: [{ column: 'Email', field: 'email' }],
      tags: ['webinar'],
      existingPeopleStrategy: 'update',
    },
    handler: ({ services, db, session, body }) => createImport(services, db, session, body),
  }),
  route({
    method: 'GET',
    url: '/v1/imports',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'Imports, newest first',
    response: ImportList,
    handler: ({ db, session }) => listImports(db, session),
  }),
  route({
    method: 'GET',
    url: '/v1/imports/:id',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'One import with status, progress and counts',
    params: IdParams,
    response: Import,
    handler: ({ db, session, params }) => getImport(db, session, params.id),
  }),
  route({
    method: 'GET',
    url: '/v1/imports/:id/failures',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'Rows that failed, as CSV (row, reason)',
    params: IdParams,
    handler: async ({ db, session, params, reply }) => {
      const csv = await failuresCsv(db, session, params.id);
      await reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="import-${params.id}-failed-rows.csv"`)
        .send(csv);
    },
  }),
];
