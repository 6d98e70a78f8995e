import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

export function listTags(db: Database, accountId: number) {
  return db
    .selectFrom('tags')
    .select(['tag', 'description', 'createdAt'])
    .where('accountId', '=', accountId)
    .orderBy('tag')
    .execute();
}

export function findTag(db: Database, accountId: number, tag: string) {
  return db
    .selectFrom('tags')
    .select(['tag', 'description', 'createdAt'])
    .where('accountId', '=', accountId)
    .where('tag', '=', tag)
    .executeTakeFirst();
}

/** People per managed tag, in one pass over the account's people (array containment is not indexable under row-level security). */
export async function tagCounts(db: Database, accountId: number) {
  const { rows } = await sql<{ tag: string; count: number }>`
    with used as (select unnest(tags) as tag, count(*)::int as n from people where account_id = ${accountId} group by 1)
    select t.tag, coalesce(u.n, 0) as count from tags t left join used u on u.tag = t.tag
    where t.account_id = ${accountId} order by t.tag`.execute(db);
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
