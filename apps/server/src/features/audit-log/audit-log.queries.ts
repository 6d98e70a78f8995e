import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

export interface AuditLogSelection {
  accountId: number;
  /** A user id, or 'api-key'. */
  actor?: string;
  resourceType?: string;
  from?: Date;
  to?: Date;
  /** Entries older than this id (the cursor). */
  beforeId?: number;
  limit: number;
}

/** The account's entries, newest first, filtered. */
export async function selectAuditEntries(db: Database, s: AuditLogSelection) {
  let query = db
    .selectFrom('auditLog')
    .select([
      'id',
      'at',
      'actorKind',
      'actorUserId',
      'actorLabel',
      'ip',
      'action',
      'resourceType',
      'resourceId',
      'changes',
    ])
    .where('accountId', '=', s.accountId);
  if (s.actor === 'api-key') query = query.where('actorKind', '=', 'api_key');
  else if (s.actor) query = query.where('actorUserId', '=', Number(s.actor));
  if (s.resourceType) query = query.where('resourceType', '=', s.resourceType);
  if (s.from) query = query.where('at', '>=', s.from);
  if (s.to) query = query.where('at', '<=', s.to);
  if (s.beforeId !== undefined) query = query.where('id', '<', s.beforeId);
  return query.orderBy('id', 'desc').limit(s.limit).execute();
}

/** Who and what the account's log names, for the filters (the latest label of each actor). */
export async function selectAuditFacets(db: Database, accountId: number) {
  const actors = await sql<{ actorKind: string; actorUserId: number | null; actorLabel: string }>`
    select distinct on (actor_kind, actor_user_id) actor_kind as "actorKind", actor_user_id as "actorUserId",
      actor_label as "actorLabel"
    from audit_log where account_id = ${accountId}
    order by actor_kind, actor_user_id, id desc`.execute(db);
  const types = await db
    .selectFrom('auditLog')
    .select('resourceType')
    .distinct()
    .where('accountId', '=', accountId)
    .orderBy('resourceType')
    .execute();
  const account = await db
    .selectFrom('accounts')
    .select('auditLogRetentionMonths')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return {
    actors: actors.rows,
    resourceTypes: types.map((t) => t.resourceType),
    retentionMonths: account?.auditLogRetentionMonths ?? 24,
  };
}

export async function findRetention(db: Database, accountId: number) {
  const row = await db
    .selectFrom('accounts')
    .select('auditLogRetentionMonths')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row?.auditLogRetentionMonths ?? 24;
}

export async function updateRetention(db: Database, accountId: number, months: number) {
  await db
    .updateTable('accounts')
    .set({ auditLogRetentionMonths: months })
    .where('id', '=', accountId)
    .execute();
}

/** Delete entries past each account's retention, through the owner-rights function (herald_app cannot delete). */
export async function pruneAuditLog(db: Database): Promise<number> {
  const result = await sql<{ count: string }>`select herald_prune_audit_log() as count`.execute(db);
  return Number(result.rows[0]?.count ?? 0);
}
