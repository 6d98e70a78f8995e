import { normaliseTag, peopleMessages, type CreateTagsBody, type UpdateTagBody } from '@herald/contracts';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { findTag, listTags, removeTagFromPeople, renameTagOnPeople, tagCounts } from './tags.queries.ts';

const toTag = (row: { tag: string; description: string | null; createdAt: Date }) => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
});

export async function listManagedTags(db: Database, session: Session) {
  return { tags: (await listTags(db, session.accountId)).map(toTag) };
}

export async function countTags(db: Database, session: Session) {
  return { tagCounts: await tagCounts(db, session.accountId) };
}

/** POST /v1/tags-management: new tags (normalised, unique), all or none. */
export async function createTags(db: Database, session: Session, body: z.infer<typeof CreateTagsBody>) {
  const seen = new Set<string>();
  const rows = body.tags.map((t) => {
    const tag = normaliseTag(t.tag);
    if (!tag) throw badRequest(peopleMessages.missingTagName);
    if (seen.has(tag)) throw conflict(peopleMessages.tagExists);
    seen.add(tag);
    return { accountId: session.accountId, tag, description: t.description || null };
  });
  for (const row of rows)
    if (await findTag(db, session.accountId, row.tag)) throw conflict(peopleMessages.tagExists);
  const created = await db
    .insertInto('tags')
    .values(rows)
    .returning(['tag', 'description', 'createdAt'])
    .execute();
  return { tags: created.map(toTag) };
}

/** PATCH /v1/tags-management/{tag}: description, or a new name that every person's tag follows. */
export async function updateTag(
  db: Database,
  session: Session,
  current: string,
  body: z.infer<typeof UpdateTagBody>,
) {
  const existing = await findTag(db, session.accountId, current);
  if (!existing) throw notFound(peopleMessages.tagNotFound);
  let name = current;
  if (body.tag !== undefined) {
    name = normaliseTag(body.tag);
    if (!name) throw badRequest(peopleMessages.missingTagName);
    if (name !== current && (await findTag(db, session.accountId, name)))
      throw conflict(peopleMessages.tagExists);
  }
  await db
    .updateTable('tags')
    .set({ tag: name, ...(body.description !== undefined ? { description: body.description || null } : {}) })
    .where('accountId', '=', session.accountId)
    .where('tag', '=', current)
    .execute();
  if (name !== current) await renameTagOnPeople(db, session.accountId, current, name);
  return { tag: toTag((await findTag(db, session.accountId, name))!) };
}

/** DELETE /v1/tags-management/{tag}: the tag and every person's use of it. */
export async function deleteTag(db: Database, session: Session, tag: string) {
  const res = await db
    .deleteFrom('tags')
    .where('accountId', '=', session.accountId)
    .where('tag', '=', tag)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw notFound(peopleMessages.tagNotFound);
  await removeTagFromPeople(db, session.accountId, tag);
}
