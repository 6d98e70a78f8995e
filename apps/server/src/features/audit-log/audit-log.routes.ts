import {
  AuditLogFacets,
  AuditLogFilters,
  AuditLogPage,
  AuditLogQuery,
  AuditLogRetentionBody,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { auditLogFacets, exportAuditLog, listAuditLog, setAuditLogRetention } from './audit-log.service.ts';

/** The account's audit log: read by whoever may change the account's settings (docs/security.md, "Audit log"). */
export const auditLogRoutes = [
  route({
    method: 'GET',
    url: '/v1/audit-log',
    auth: 'session',
    scopes: ['account:write'],
    summary:
      'Audit log entries, newest first; filter by actor, resource type, from, to; page with the cursor',
    query: AuditLogQuery,
    response: AuditLogPage,
    handler: ({ db, session, query }) => listAuditLog(db, session, query),
  }),
  route({
    method: 'GET',
    url: '/v1/audit-log/export',
    auth: 'session',
    scopes: ['account:write'],
    summary: 'The filtered audit log as CSV (50,000 newest entries at most)',
    query: AuditLogFilters,
    handler: async ({ db, session, query, reply }) => {
      const csv = await exportAuditLog(db, session, query);
      await reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="audit-log.csv"')
        .send(csv);
    },
  }),
  route({
    method: 'GET',
    url: '/v1/audit-log/facets',
    auth: 'session',
    scopes: ['account:write'],
    summary: "The actors and resource types the account's log names, and its retention",
    response: AuditLogFacets,
    handler: ({ db, session }) => auditLogFacets(db, session),
  }),
  route({
    method: 'PUT',
    url: '/v1/audit-log/retention',
    auth: 'session',
    scopes: ['account:write'],
    summary: 'Keep audit log entries this many months (1 to 120; 24 by default)',
    body: AuditLogRetentionBody,
    example: { months: 24 },
    handler: ({ db, session, body, audit }) => setAuditLogRetention(db, session, audit, body),
  }),
];
