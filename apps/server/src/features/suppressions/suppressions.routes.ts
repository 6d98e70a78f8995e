import {
  AddSuppressionsBody,
  AddSuppressionsResponse,
  RemoveSuppressionQuery,
  SuppressionHistory,
  SuppressionHistoryQuery,
  SuppressionList,
  SuppressionListQuery,
  SuppressionParams,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import {
  addSuppressions,
  exportSuppressions,
  findSuppression,
  listSuppressions,
  removeSuppression,
  suppressionHistory,
} from './suppressions.service.ts';

/** The account's one suppression list: people's addresses, so people scopes guard it. */
export const suppressionsRoutes = [
  route({
    method: 'GET',
    url: '/v1/suppressions',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'Suppressed addresses, newest first; search and filter by reason',
    query: SuppressionListQuery,
    response: SuppressionList,
    handler: ({ db, session, query }) => listSuppressions(db, session, query),
  }),
  route({
    method: 'POST',
    url: '/v1/suppressions',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Suppress addresses (manual unless a reason is given)',
    body: AddSuppressionsBody,
    response: AddSuppressionsResponse,
    example: { emails: ['no-mail@example.com'], note: 'Asked by phone' },
    handler: ({ db, session, body }) => addSuppressions(db, session, body),
  }),
  route({
    method: 'GET',
    url: '/v1/suppressions/history',
    auth: 'session',
    scopes: ['people:read'],
    summary: 'Additions and removals, newest first (500 at most)',
    query: SuppressionHistoryQuery,
    response: SuppressionHistory,
    handler: ({ db, session, query }) => suppressionHistory(db, session, query.email),
  }),
  route({
    method: 'GET',
    url: '/v1/suppressions/export',
    auth: 'session',
    scopes: ['people:export'],
    summary: 'The suppression list as CSV',
    handler: async ({ db, session, reply }) => {
      const csv = await exportSuppressions(db, session);
      await reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="suppressions.csv"')
        .send(csv);
    },
  }),
  route({
    method: 'DELETE',
    url: '/v1/suppressions/:email',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Lift a suppression (kept in the history with an optional note)',
    params: SuppressionParams,
    query: RemoveSuppressionQuery,
    audit: { before: ({ db, session, params }) => findSuppression(db, session, params.email) },
    handler: ({ db, session, params, query }) => removeSuppression(db, session, params.email, query.note),
  }),
];
