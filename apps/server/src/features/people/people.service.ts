import { peopleMessages, peoplePageSize, type Person } from '@herald/contracts';
import type { EventStore } from '../../db/event-store.ts';
import type { Database } from '../../db/connection.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { listCustomFields } from '../fields/fields.queries.ts';
import {
  addTag,
  countExisting,
  ensureTags,
  deletePerson,
  findPerson,
  insertPerson,
  removeTag,
  searchPeople,
  toPerson,
  updatePerson,
} from './people.queries.ts';
import { checkPersonValues } from './person-values.ts';
import { normaliseTag } from '@herald/contracts';

function isUniqueViolation(error: unknown) {
  return (error as { code?: string }).code === '23505';
}

export async function getPerson(db: Database, session: Session, id: number): Promise<{ users: Person[] }> {
  const row = await findPerson(db, session.accountId, id);
  if (!row) throw notFound(peopleMessages.personNotFound);
  return { users: [toPerson(row)] };
}

/** POST /v1/people/?source=manual: a new person; email required and unique in the account. */
export async function createPerson(db: Database, session: Session, values: Record<string, unknown>) {
  const checked = checkPersonValues(values, await listCustomFields(db, session.accountId), {
    allowTags: true,
  });
  if (!checked.columns.email) throw badRequest('Enter a valid email address.');
  let id: number;
  try {
    id = await insertPerson(db, session.accountId, checked.columns, checked.fields, checked.tags ?? []);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(peopleMessages.emailTaken, 'email-taken');
    throw error;
  }
  // The person row already carries the tags; the account's tag list learns any new ones.
  await ensureTags(db, session.accountId, checked.tags ?? []);
  const row = await findPerson(db, session.accountId, id);
  return { user: toPerson(row!) };
}

/** PATCH /v1/people/{id}: first-class and custom fields; tags change through the tag calls. */
export async function editPerson(
  db: Database,
  session: Session,
  id: number,
  values: Record<string, unknown>,
) {
  const checked = checkPersonValues(values, await listCustomFields(db, session.accountId), {
    allowTags: false,
  });
  if ('tags' in values)
    throw badRequest('Tags are added and removed with the tag calls, not by editing the person.');
  try {
    const found = await updatePerson(db, session.accountId, id, checked.columns, checked.fields);
    if (!found) throw notFound(peopleMessages.personNotFound);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(peopleMessages.emailTaken, 'email-taken');
    throw error;
  }
  const row = await findPerson(db, session.accountId, id);
  return { user: toPerson(row!), message: peopleMessages.personUpdated };
}

export async function search(db: Database, session: Session, query: string, page: number) {
  const { rows, hasMore } = await searchPeople(db, session.accountId, query, page, peoplePageSize);
  return { users: rows.map(toPerson), page, hasMore };
}

export async function removePerson(events: EventStore, db: Database, session: Session, id: number) {
  // The person first (404 rolls the transaction back before any event is touched), then their events.
  if (!(await deletePerson(db, session.accountId, id))) throw notFound(peopleMessages.personNotFound);
  await events.deletePerson(db, session.accountId, id);
  return { message: peopleMessages.personDeleted };
}

function tagTarget(body: { tag?: string | undefined; id?: number | number[] | undefined }) {
  const tag = normaliseTag(body.tag ?? '');
  if (!tag) throw badRequest(peopleMessages.missingTagName);
  const ids = body.id === undefined ? [] : Array.isArray(body.id) ? body.id : [body.id];
  if (ids.length === 0) throw badRequest(peopleMessages.missingUsers);
  return { tag, ids };
}

/** POST /v1/tags/: add a tag to one or more people. */
export async function tagPeople(
  db: Database,
  session: Session,
  body: { tag?: string; id?: number | number[] },
) {
  const { tag, ids } = tagTarget(body);
  if ((await countExisting(db, session.accountId, ids)) === 0) throw notFound(peopleMessages.personNotFound);
  const changed = await addTag(db, session.accountId, ids, tag);
  return { tag, changed };
}

/** DELETE /v1/tags/: remove a tag from people. */
export async function untagPeople(
  db: Database,
  session: Session,
  body: { tag?: string; id?: number | number[] },
) {
  const { tag, ids } = tagTarget(body);
  if ((await countExisting(db, session.accountId, ids)) === 0) throw notFound(peopleMessages.personNotFound);
  const changed = await removeTag(db, session.accountId, ids, tag);
  return { tag, changed };
}
