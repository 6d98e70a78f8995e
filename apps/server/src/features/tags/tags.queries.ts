import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

export function listTags(db: Database, accountId: number) {
  return db.selectFrom('tags').select(['tag', 'description', 'createdAt']).where('accountId', '=', accountId).orderBy('tag').execute();
}

export function findTag(db: Database, accountId: number, tag: string) {
  return db.selectFrom('tags').select(['tag', 'description', 'createdAt']).where('accountId', '=', accountId).where('tag', '=', tag).executeTakeFirst();
}

/** People per managed tag, through the tags GIN index (one index probe per tag). */
export async function tagCounts(db: Database, accountId: number) {
  const { rows } = await sql<{ tag: string; count: number }>`
    select t.tag, (select count(*)::int from people p where p.account_id = t.account_id and p.tags @> array[t.tag]) as count
    from tags t where t.account_id = ${accountId} order by t.tag`.execute(db);
  return rows;
}

/** Rename a tag on every person that has it, without leaving a duplicate. */
export async function renameTagOnPeople(db: Database, accountId: number, from: string, to: string) {
  await sql`update people set tags = array(select distinct unnest(array_replace(tags, ${from}, ${to}))), updated_at = now()
    where account_id = ${accountId} and tags @> array[${from}]::text[]`.execute(db);
}

export async function removeTagFromPeople(db: Database, accountId: number, tag: string) {
  await sql`update people set tags = array_remove(tags, ${tag}), updated_at = now()
    where account_id = ${accountId} and tags @> array[${tag}]::text[]`.execute(db);
}
