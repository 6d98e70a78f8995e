import { sql, type Insertable, type Updateable } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { Emails } from '../../db/schema.generated.ts';

const summaryColumns = [
  'id',
  'name',
  'subject',
  'preheader',
  'fromName',
  'fromEmail',
  'replyTo',
  'categoryId',
  'type',
  'archived',
  'createdAt',
  'updatedAt',
  sql<string>`editor->>'type'`.as('editorType'),
] as const;

/** The email list: everything but the content, newest change first. */
export function listEmails(db: Database, accountId: number, archived: boolean | 'all') {
  let query = db.selectFrom('emails').select(summaryColumns).where('accountId', '=', accountId);
  if (archived !== 'all') query = query.where('archived', '=', archived);
  return query.orderBy('updatedAt', 'desc').orderBy('id', 'desc').execute();
}
export type EmailSummaryRow = Awaited<ReturnType<typeof listEmails>>[number];

export function findEmail(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('emails')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}
export type EmailRow = NonNullable<Awaited<ReturnType<typeof findEmail>>>;

export function insertEmail(db: Database, row: Insertable<Emails>) {
  return db.insertInto('emails').values(row).returningAll().executeTakeFirstOrThrow();
}

export type EmailChanges = Omit<Updateable<Emails>, 'accountId' | 'id' | 'createdAt' | 'createdBy'>;

export function updateEmailRow(db: Database, accountId: number, id: number, changes: EmailChanges) {
  return db
    .updateTable('emails')
    .set({ ...changes, updatedAt: sql`now()` })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Ids of the account's emails that are not archived: the items the emails folder tree lists. */
export async function listActiveEmailIds(db: Database, accountId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('emails')
    .select('id')
    .where('accountId', '=', accountId)
    .where('archived', '=', false)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Archive these emails (deleting a folder of emails archives what it held). */
export async function archiveEmails(db: Database, accountId: number, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await db
    .updateTable('emails')
    .set({ archived: true, updatedAt: sql`now()` })
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}
