import {
  auditLogMessages,
  type AuditLogEntry,
  type AuditLogFacets,
  type AuditLogFilters,
  type AuditLogPage,
  type AuditLogQuery,
  type AuditLogRetentionBody,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest } from '../../http/errors.ts';
import type { AuditTrail } from '../../http/audit.ts';
import type { Session } from '../../http/route.ts';
import { csvRow } from '../../lib/csv.ts';
import {
  findRetention,
  selectAuditEntries,
  selectAuditFacets,
  updateRetention,
  type AuditLogSelection,
} from './audit-log.queries.ts';

const cursorPrefix = 'audit:';
/** Rows in one CSV export; past it, narrow the dates. */
export const exportLimit = 50_000;

/** The cursor is the last entry's id, wrapped so callers treat it as opaque. */
function encodeCursor(id: number): string {
  return Buffer.from(`${cursorPrefix}${id}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = text.startsWith(cursorPrefix) ? Number(text.slice(cursorPrefix.length)) : NaN;
  if (!Number.isSafeInteger(id) || id < 1 || encodeCursor(id) !== cursor)
    throw badRequest(auditLogMessages.badCursor);
  return id;
}

function selection(session: Session, filters: AuditLogFilters, limit: number): AuditLogSelection {
  return {
    accountId: session.accountId,
    actor: filters.actor,
    resourceType: filters.resourceType,
    from: filters.from ? new Date(filters.from) : undefined,
    to: filters.to ? new Date(filters.to) : undefined,
    limit,
  };
}

type Row = Awaited<ReturnType<typeof selectAuditEntries>>[number];

function toEntry(row: Row): AuditLogEntry {
  return {
    id: String(row.id),
    at: row.at.toISOString(),
    actor: {
      kind: row.actorKind as AuditLogEntry['actor']['kind'],
      userId: row.actorUserId,
      label: row.actorLabel,
    },
    ip: row.ip,
    action: row.action,
    resourceType: row.resourceType,
    resourceId: row.resourceId,
    changes: (row.changes ?? null) as AuditLogEntry['changes'],
  };
}

/** GET /v1/audit-log: one page, newest first. */
export async function listAuditLog(
  db: Database,
  session: Session,
  query: AuditLogQuery,
): Promise<AuditLogPage> {
  const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await selectAuditEntries(db, { ...selection(session, query, query.limit + 1), beforeId });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    entries: page.map(toEntry),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last.id) : null,
  };
}

/** GET /v1/audit-log/export: the filtered entries as CSV (formula cells escaped by csvRow). */
export async function exportAuditLog(
  db: Database,
  session: Session,
  filters: AuditLogFilters,
): Promise<string> {
  const rows = await selectAuditEntries(db, selection(session, filters, exportLimit));
  const header = csvRow([
    'at',
    'actor',
    'actorKind',
    'ip',
    'action',
    'resourceType',
    'resourceId',
    'changes',
  ]);
  return (
    header +
    rows
      .map((r) =>
        csvRow([
          r.at.toISOString(),
          r.actorLabel,
          r.actorKind,
          r.ip,
          r.action,
          r.resourceType,
          r.resourceId,
          r.changes,
        ]),
      )
      .join('')
  );
}

export async function auditLogFacets(db: Database, session: Session): Promise<AuditLogFacets> {
  const facets = await selectAuditFacets(db, session.accountId);
  return {
    actors: facets.actors.map((a) => ({
      value: a.actorKind === 'api_key' ? 'api-key' : String(a.actorUserId),
      label: a.actorLabel,
    })),
    resourceTypes: facets.resourceTypes,
    retentionMonths: facets.retentionMonths,
  };
}

/** PUT /v1/audit-log/retention: how many months entries are kept; the change is itself logged. */
export async function setAuditLogRetention(
  db: Database,
  session: Session,
  audit: AuditTrail,
  body: AuditLogRetentionBody,
): Promise<void> {
  const before = await findRetention(db, session.accountId);
  await updateRetention(db, session.accountId, body.months);
  audit.change(
    'account-settings',
    session.accountId,
    { auditLogRetentionMonths: before },
    {
      auditLogRetentionMonths: body.months,
    },
  );
}
