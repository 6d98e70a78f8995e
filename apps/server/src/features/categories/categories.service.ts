import {
  sendingMessages,
  type CommunicationCategory,
  type CreateCategoryBody,
  type UpdateCategoryBody,
} from '@herald/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import type { CommunicationCategories } from '../../db/schema.generated.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Selectable } from 'kysely';

type CategoryRow = Selectable<CommunicationCategories>;

export function toCategory(row: CategoryRow): CommunicationCategory {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    type: row.type as CommunicationCategory['type'],
    accountId: Number(row.accountId),
    isDefault: row.isDefault,
    isArchived: row.isArchived,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The account's categories, default first, then by name; archived ones too. */
export function categoryRows(db: Database, accountId: number) {
  return db
    .selectFrom('communicationCategories')
    .selectAll()
    .where('accountId', '=', accountId)
    .orderBy('isDefault', 'desc')
    .orderBy(sql`lower(name)`)
    .execute();
}

/** A category of the account (archived or not), else 400 'Category not found.' (it is named in a body). */
export async function categoryOrThrow(db: Database, accountId: number, id: number) {
  const row = await db
    .selectFrom('communicationCategories')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw badRequest(sendingMessages.categoryNotFound);
  return row;
}

/** The category an email without one is sent under. */
export function defaultCategory(db: Database, accountId: number) {
  return db
    .selectFrom('communicationCategories')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('isDefault', '=', true)
    .executeTakeFirst();
}

async function nameFree(db: Database, accountId: number, name: string, exceptId?: number) {
  let q = db
    .selectFrom('communicationCategories')
    .select('id')
    .where('accountId', '=', accountId)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw conflict(sendingMessages.categoryNameTaken);
}

export async function listCategories(db: Database, session: Session) {
  return { categories: (await categoryRows(db, session.accountId)).map(toCategory) };
}

/** Emails filed under each category (the default one counts emails without a category) and people's choices. */
export async function countCategories(db: Database, session: Session) {
  const accountId = session.accountId;
  const [rows, emails, prefs] = await Promise.all([
    categoryRows(db, accountId),
    db
      .selectFrom('emails')
      .select(['categoryId', (eb) => eb.fn.countAll<string>().as('n')])
      .where('accountId', '=', accountId)
      .where('archived', '=', false)
      .groupBy('categoryId')
      .execute(),
    db
      .selectFrom('communicationPreferences')
      .select(['categoryId', 'value', (eb) => eb.fn.countAll<string>().as('n')])
      .where('accountId', '=', accountId)
      .groupBy(['categoryId', 'value'])
      .execute(),
  ]);
  const emailCount = new Map(
    emails.map((e) => [e.categoryId === null ? 'default' : String(e.categoryId), Number(e.n)]),
  );
  return {
    counts: rows.map((row) => {
      const id = String(row.id);
      const of = (value: string) =>
        Number(prefs.find((p) => String(p.categoryId) === id && p.value === value)?.n ?? 0);
      return {
        id: Number(row.id),
        emails: (emailCount.get(id) ?? 0) + (row.isDefault ? (emailCount.get('default') ?? 0) : 0),
        optedIn: of('optIn'),
        optedOut: of('optOut'),
      };
    }),
  };
}

export async function createCategory(
  db: Database,
  session: Session,
  body: z.infer<typeof CreateCategoryBody>,
) {
  await nameFree(db, session.accountId, body.name);
  const row = await db
    .insertInto('communicationCategories')
    .values({ accountId: session.accountId, name: body.name, description: body.description, type: body.type })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { category: toCategory(row) };
}

/** PATCH: name, description, archived; `isDefault: true` moves the default here. The default cannot be archived. */
export async function updateCategory(
  db: Database,
  session: Session,
  id: number,
  body: z.infer<typeof UpdateCategoryBody>,
) {
  const accountId = session.accountId;
  const current = await db
    .selectFrom('communicationCategories')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw notFound(sendingMessages.categoryNotFound);
  const archived = body.isArchived ?? current.isArchived;
  if (archived && current.isDefault && body.isArchived === true)
    throw badRequest(sendingMessages.defaultCategoryArchived);
  if (archived && body.isDefault) throw badRequest(sendingMessages.archivedCategoryDefault);
  if (body.name !== undefined) await nameFree(db, accountId, body.name, id);
  if (body.isDefault && !current.isDefault) {
    await db
      .updateTable('communicationCategories')
      .set({ isDefault: false })
      .where('accountId', '=', accountId)
      .where('isDefault', '=', true)
      .execute();
  }
  const changes = {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.isArchived !== undefined ? { isArchived: body.isArchived } : {}),
    ...(body.isDefault ? { isDefault: true } : {}),
  };
  // A body that changes nothing (`{}`) answers the category as it is: an UPDATE needs something to set.
  const row =
    Object.keys(changes).length === 0
      ? current
      : await db
          .updateTable('communicationCategories')
          .set(changes)
          .where('accountId', '=', accountId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
  return { category: toCategory(row), message: sendingMessages.categoryUpdated };
}
