import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

/** Ensure a person exists for each email (case-insensitive) and return id by lower-cased email. */
export async function resolveByEmail(
  db: Database,
  accountId: number,
  emails: string[],
): Promise<Map<string, number>> {
  if (emails.length === 0) return new Map();
  await sql`insert into people (account_id, email) select ${accountId}, e from unnest(${emails}::text[]) e
    on conflict (account_id, email_key) where email_key is not null do nothing`.execute(db);
  // email_key (not lower(email)): plain equality can use the index under row-level security.
  const { rows } = await sql<{ id: number; key: string }>`select id, email_key as key from people
    where account_id = ${accountId} and email_key = any(${emails.map((e) => e.toLowerCase())}::text[])`.execute(
    db,
  );
  return new Map(rows.map((r) => [r.key, Number(r.id)]));
}

/** Ensure a person exists for each anonymous id and return id by anonymous id. */
export async function resolveByAnonymousId(
  db: Database,
  accountId: number,
  ids: string[],
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  await sql`insert into people (account_id, anonymous_id) select ${accountId}, a from unnest(${ids}::text[]) a
    on conflict (account_id, anonymous_id) where anonymous_id is not null do nothing`.execute(db);
  const { rows } = await sql<{ id: number; key: string }>`select id, anonymous_id as key from people
    where account_id = ${accountId} and anonymous_id = any(${ids}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.key, Number(r.id)]));
}

/** Find people by the account's own user id, creating the ones not seen before. */
export async function resolveByExternalId(
  db: Database,
  accountId: number,
  ids: string[],
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const found = await db
    .selectFrom('people')
    .select(['id', 'externalId'])
    .where('accountId', '=', accountId)
    .where('externalId', 'in', ids)
    .execute();
  const map = new Map(found.map((r) => [r.externalId!, r.id]));
  const missing = ids.filter((id) => !map.has(id));
  if (missing.length) {
    const created = await db
      .insertInto('people')
      .values(missing.map((externalId) => ({ accountId, externalId })))
      .returning(['id', 'externalId'])
      .execute();
    for (const r of created) map.set(r.externalId!, r.id);
  }
  return map;
}

export interface EventRow {
  accountId: number;
  personId: number | null;
  type: string;
  name: string | null;
  url: string | null;
  data: string;
  source: string;
  createdAt: Date;
}

export async function insertEvents(db: Database, rows: EventRow[]) {
  if (rows.length) await db.insertInto('events').values(rows).execute();
}

const eventColumns = ['id', 'personId', 'type', 'name', 'url', 'data', 'source', 'createdAt'] as const;

/** Newest first, keyset-paged on (created_at, id). */
export async function pageEvents(
  db: Database,
  accountId: number,
  filter: { personId?: number; source?: string; withoutPeople?: boolean },
  after: { createdAt: Date; id: number } | undefined,
  limit: number,
) {
  let q = db.selectFrom('events').select(eventColumns).where('accountId', '=', accountId);
  if (filter.personId !== undefined) q = q.where('personId', '=', filter.personId);
  if (filter.withoutPeople) q = q.where('personId', 'is', null);
  if (filter.source) q = q.where('source', '=', filter.source);
  if (after) q = q.where(sql<boolean>`(created_at, id) < (${after.createdAt}, ${after.id})`);
  return q
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}
