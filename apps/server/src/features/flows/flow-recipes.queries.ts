import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { RecipeField } from './recipes/recipe-types.ts';

/** Ids of the account's automatic segments by their type (new, needSomeLove…). */
export async function automaticSegmentIds(db: Database, accountId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('segments')
    .select(['id', 'autoType'])
    .where('accountId', '=', accountId)
    .where('autoType', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.autoType!, Number(r.id)]));
}

/** Custom fields a recipe needs, added unless the account has one of that name (in any case). */
export async function ensureFields(
  db: Database,
  accountId: number,
  fields: readonly RecipeField[],
): Promise<void> {
  for (const field of fields) {
    const existing = await db
      .selectFrom('personFields')
      .select('name')
      .where('accountId', '=', accountId)
      .where(sql<string>`lower(name)`, '=', field.name.toLowerCase())
      .executeTakeFirst();
    if (!existing)
      await db
        .insertInto('personFields')
        .values({ accountId, name: field.name, title: field.title, type: field.type })
        .execute();
  }
}

/** A flow made from a recipe remembers which one, and takes its re-entry rule. */
export async function markRecipe(
  db: Database,
  accountId: number,
  flowId: number,
  recipe: string,
  reentryDays: number | null,
) {
  await db
    .updateTable('flows')
    .set({ recipe, ...(reentryDays !== null ? { reentry: 'after-days', reentryDays } : {}) })
    .where('accountId', '=', accountId)
    .where('id', '=', flowId)
    .execute();
}
