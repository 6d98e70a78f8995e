import { sql } from 'kysely';
import type { Person } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import type { PersonColumns } from './person-values.ts';

export const personColumns = [
  'id',
  'email',
  'firstName',
  'lastName',
  'phone',
  'company',
  'website',
  'externalId',
  'fields',
  'tags',
  'createdAt',
  'updatedAt',
  'archivedAt',
  'unsubscribedAt',
  'unsubscribeReason',
] as const;

type PersonRow = Awaited<ReturnType<typeof findPerson>> & {};

/** The API shape: custom fields flattened beside the first-class ones, tags comma-separated. */
export function toPerson(row: NonNullable<PersonRow>): Person {
  const fields = row.fields as Record<string, unknown>;
  const person = {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    phone: row.phone,
    company: row.company,
    website: row.website,
    userId: row.externalId,
    tags: row.tags.join(', '),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    archived: row.archivedAt !== null,
    unsubscribed: row.unsubscribedAt !== null,
    unsubscribeReason: row.unsubscribeReason,
  };
  // Object.assign gives the keys and order `{ ...fields, id, … }` gives, at about 3 µs a person where that literal
  // costs 20-30 µs on Node 20 (docs/people.md, "What a page costs besides the search"). A custom field named
  // __proto__ (a name field names allow) stays a field only through the spread: Object.assign would set the prototype.
  return Object.hasOwn(fields, '__proto__') ? { ...fields, ...person } : Object.assign({}, fields, person);
}

/**
 * `toPerson` as a PostgreSQL expression over the people row `p` (jsonb): the shape templates see when a send
 * builds a whole batch of people in the database as one JSON text, with the e-mail never null and the tags as
 * a list (what the sending pipeline renders with). Dates are written as `toISOString` writes them.
 */
export const personJsonForTemplates = sql<unknown>`coalesce(p.fields, '{}'::jsonb) || jsonb_build_object(
  'id', p.id, 'email', coalesce(p.email, ''), 'firstName', p.first_name, 'lastName', p.last_name, 'phone', p.phone,
  'company', p.company, 'website', p.website, 'userId', p.external_id, 'tags', to_jsonb(p.tags),
  'createdAt', to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'updatedAt', to_char(p.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'archived', p.archived_at is not null, 'unsubscribed', p.unsubscribed_at is not null, 'unsubscribeReason', p.unsubscribe_reason)`;

export function findPerson(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('people')
    .select(personColumns)
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function insertPerson(
  db: Database,
  accountId: number,
  columns: PersonColumns,
  fields: Record<string, unknown>,
  tags: string[],
) {
  const row = await db
    .insertInto('people')
    .values({ accountId, ...columns, fields: JSON.stringify(stripNulls(fields)), tags })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

function stripNulls(values: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null));
}

/** Set columns and merge custom fields (a null removes the key) in one statement. */
export async function updatePerson(
  db: Database,
  accountId: number,
  id: number,
  columns: PersonColumns,
  fields: Record<string, unknown>,
) {
  const hasFields = Object.keys(fields).length > 0;
  const res = await db
    .updateTable('people')
    .set({
      ...columns,
      ...(hasFields ? { fields: sql`jsonb_strip_nulls(fields || ${JSON.stringify(fields)}::jsonb)` } : {}),
      updatedAt: sql<Date>`now()`,
    })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/**
 * The statement of one page of people (newest first), matching email or name when `query` is given; archived
 * excluded. It asks for one row past the page, to tell whether another page follows.
 */
export function searchPeopleQuery(
  db: Database,
  accountId: number,
  query: string,
  page: number,
  pageSize: number,
) {
  const term = query.trim().toLowerCase();
  const q = db
    .selectFrom('people')
    .select(personColumns)
    .where('accountId', '=', accountId)
    .where('archivedAt', 'is', null)
    .orderBy('id', 'desc');
  if (!term) return q.limit(pageSize + 1).offset(page * pageSize);
  // LIKE cannot use the trigram index under row-level security: herald_search_people (migration 0005) finds the
  // page's ids with the owner's rights, for the transaction's account only. Its ids are gathered into an array,
  // which PostgreSQL computes once: as `id in (select ...)` the planner could make the function the inner side of a
  // semi-join and call it again for every person of the account (docs/people.md, "How a search runs").
  return q.where(
    sql<boolean>`id = any(array(select herald_search_people(${term}, ${pageSize + 1}, ${page * pageSize})))`,
  );
}

/** One page of people: `searchPeopleQuery`'s rows, and whether more follow. */
export async function searchPeople(
  db: Database,
  accountId: number,
  query: string,
  page: number,
  pageSize: number,
) {
  const rows = await searchPeopleQuery(db, accountId, query, page, pageSize).execute();
  return { rows: rows.slice(0, pageSize), hasMore: rows.length > pageSize };
}

/** Delete a person (their events first, through the event store: `removePerson`). */
export async function deletePerson(db: Database, accountId: number, id: number) {
  const res = await db
    .deleteFrom('people')
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Make sure the tags exist in the account's managed tags, in one statement. */
export async function ensureTags(db: Database, accountId: number, tags: string[]) {
  if (tags.length === 0) return;
  await db
    .insertInto('tags')
    .values(tags.map((tag) => ({ accountId, tag })))
    .onConflict((c) => c.columns(['accountId', 'tag']).doNothing())
    .execute();
}

/** Add a tag to people (no duplicates); returns how many people changed. */
export async function addTag(db: Database, accountId: number, ids: number[], tag: string) {
  await ensureTags(db, accountId, [tag]);
  const res = await db
    .updateTable('people')
    .set({ tags: sql`array_append(tags, ${tag})`, updatedAt: sql<Date>`now()` })
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .where(sql<boolean>`not (tags @> array[${tag}]::text[])`)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export async function removeTag(db: Database, accountId: number, ids: number[], tag: string) {
  const res = await db
    .updateTable('people')
    .set({ tags: sql`array_remove(tags, ${tag})`, updatedAt: sql<Date>`now()` })
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .where(sql<boolean>`tags @> array[${tag}]::text[]`)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export async function countExisting(db: Database, accountId: number, ids: number[]) {
  const row = await db
    .selectFrom('people')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
