import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { ensureTags } from '../people/people.queries.ts';
import { writableColumns, writableTableColumns, type PersonColumns } from '../people/person-values.ts';

/**
 * Ensure a person exists for each email (case-insensitive) and return id by lower-cased email. The known people are
 * read first and only the others inserted: most of a batch names people seen before, and an insert that skips a
 * conflict still pays for trying. A person another transaction created meanwhile is read after the insert.
 */
export async function resolveByEmail(
  db: Database,
  accountId: number,
  emails: string[],
  /** Filled with the ids of the people this call created (double opt-in asks them to confirm). */
  created?: number[],
): Promise<Map<string, number>> {
  if (emails.length === 0) return new Map();
  const byKey = new Map(emails.map((e) => [e.toLowerCase(), e]));
  // email_key (not lower(email)): plain equality can use the index under row-level security.
  const find = async (keys: string[]) =>
    (
      await sql<{ id: number; key: string }>`select id, email_key as key from people
        where account_id = ${accountId} and email_key = any(${keys}::text[])`.execute(db)
    ).rows;
  const found = new Map((await find([...byKey.keys()])).map((r) => [r.key, Number(r.id)]));
  // In key order: two transactions creating some of the same people wait for each other in one order, never in a cycle.
  const missing = [...byKey.keys()].filter((key) => !found.has(key)).sort();
  if (missing.length === 0) return found;
  const { rows: inserted } = await sql<{ id: number; key: string }>`insert into people (account_id, email)
    select ${accountId}, e from unnest(${missing.map((key) => byKey.get(key)!)}::text[]) e
    on conflict (account_id, email_key) where email_key is not null do nothing
    returning id, email_key as key`.execute(db);
  for (const r of inserted) {
    found.set(r.key, Number(r.id));
    created?.push(Number(r.id));
  }
  const raced = missing.filter((key) => !found.has(key));
  if (raced.length) for (const r of await find(raced)) found.set(r.key, Number(r.id));
  return found;
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

/**
 * Hold the identities a transaction is about to look up and create until it ends: `u:` and a user id (the
 * account's own, `external_id`), `a:` and an anonymous id. A user id has no unique index (an import may have given
 * two people the same one), so two calls that each found no person for a new user id would each create one; with
 * the lock the second waits for the first to commit and finds its person. Taken in one order (sorted), so two
 * transactions holding several cannot wait on each other; a transaction may take the same one again.
 */
export async function lockIdentities(db: Database, accountId: number, keys: Iterable<string>): Promise<void> {
  const sorted = [...new Set(keys)].sort();
  if (sorted.length === 0) return;
  await sql`select count(pg_advisory_xact_lock(hashtextextended(${`identity:${accountId}:`} || k, 0)))
    from (select k from unnest(${sorted}::text[]) k order by k) s`.execute(db);
}

/** Find people by the account's own user id, creating the ones not seen before; callers hold lockIdentities. */
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

/**
 * Insert events in one statement of eight array parameters (one per column) rather than a row of eight parameters
 * per event: a batch of 500 is bound and planned as 8 values, not 4,000.
 */
export async function insertEvents(db: Database, rows: EventRow[]) {
  if (rows.length === 0) return;
  const column = <T>(pick: (row: EventRow) => T) => rows.map(pick);
  await sql`insert into events (account_id, person_id, type, name, url, data, source, created_at)
    select * from unnest(${column((r) => r.accountId)}::bigint[], ${column((r) => r.personId)}::bigint[],
      ${column((r) => r.type)}::text[], ${column((r) => r.name)}::text[], ${column((r) => r.url)}::text[],
      ${column((r) => r.data)}::jsonb[], ${column((r) => r.source)}::text[], ${column((r) => r.createdAt)}::timestamptz[])`.execute(
    db,
  );
}

/** What a batch's identify calls write to one person: their traits merged in order (`mergeIdentify`). */
export interface IdentifyWrite {
  id: number;
  columns: PersonColumns;
  /** Custom field values; null removes the value. */
  fields: Record<string, unknown>;
  /** Tags to add, in the order they came. */
  tags: string[];
}

/** The people columns an identify call may set (PersonColumns' keys) as the table spells them. */
const identifyColumns = Object.fromEntries(
  Object.entries(writableColumns).map(([name, column]) => [
    column,
    writableTableColumns[name as keyof typeof writableColumns],
  ]),
) as Record<keyof PersonColumns, string>;

/**
 * Write a batch's identify calls in at most two statements, however many people: one for the people whose columns
 * or custom fields change (setting only the columns some write names, so the people triggers that look at which
 * columns a statement sets see what they would for each call alone) and one for those who only gain tags (which
 * marks segments by tag, as adding a tag does: migration 0039).
 */
export async function writeIdentified(db: Database, accountId: number, writes: IdentifyWrite[]) {
  const tags = [...new Set(writes.flatMap((w) => w.tags))];
  if (tags.length) await ensureTags(db, accountId, tags);
  const withValues = writes.filter((w) => Object.keys(w.columns).length || Object.keys(w.fields).length);
  const tagsOnly = writes.filter((w) => w.tags.length && !withValues.includes(w));
  const addTags = sql`p.tags || array(select t from unnest(u.t) with ordinality x(t, o)
    where not (t = any(p.tags)) order by o)`;
  if (withValues.length) {
    const named = Object.entries(identifyColumns).filter(([key]) =>
      withValues.some((w) => Object.hasOwn(w.columns, key)),
    );
    const sets = named.map(
      ([key, column]) =>
        sql`${sql.ref(column)} = case when u.c ? ${key} then u.c ->> ${key} else p.${sql.ref(column)} end`,
    );
    if (withValues.some((w) => Object.keys(w.fields).length))
      sets.push(
        sql`fields = case when u.f is null then p.fields else jsonb_strip_nulls(p.fields || u.f) end`,
      );
    if (withValues.some((w) => w.tags.length)) sets.push(sql`tags = ${addTags}`);
    // In id order, as the tags-only payload below: two batches updating the same people lock them in one order.
    const payload = withValues
      .sort((a, b) => a.id - b.id)
      .map((w) => ({
        id: w.id,
        c: w.columns,
        f: Object.keys(w.fields).length ? w.fields : null,
        t: w.tags,
      }));
    await sql`update people p set ${sql.join(sets)}, updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) as u(id bigint, c jsonb, f jsonb, t text[])
      where p.account_id = ${accountId} and p.id = u.id`.execute(db);
  }
  if (tagsOnly.length) {
    const payload = tagsOnly.sort((a, b) => a.id - b.id).map((w) => ({ id: w.id, t: w.tags }));
    await sql`update people p set tags = ${addTags}, updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) as u(id bigint, t text[])
      where p.account_id = ${accountId} and p.id = u.id and not (p.tags @> u.t)`.execute(db);
  }
}

/** The addresses among `emails` (lower-cased) that belong to a person other than the one named beside them. */
export async function emailsTaken(
  db: Database,
  accountId: number,
  changes: { id: number; emailKey: string }[],
): Promise<Set<string>> {
  if (changes.length === 0) return new Set();
  const { rows } = await sql<{ key: string }>`select p.email_key as key from people p
    join unnest(${changes.map((c) => c.emailKey)}::text[], ${changes.map((c) => c.id)}::bigint[]) as u(key, id)
      on p.email_key = u.key and p.id <> u.id
    where p.account_id = ${accountId}`.execute(db);
  return new Set(rows.map((r) => r.key));
}
