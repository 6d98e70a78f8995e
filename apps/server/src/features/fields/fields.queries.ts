import type { Database } from '../../db/connection.ts';

export function listCustomFields(db: Database, accountId: number) {
  return db
    .selectFrom('personFields')
    .selectAll()
    .where('accountId', '=', accountId)
    .orderBy('createdAt')
    .orderBy('name')
    .execute();
}

export type CustomFieldRow = Awaited<ReturnType<typeof listCustomFields>>[number];

export function findCustomField(db: Database, accountId: number, name: string) {
  return db
    .selectFrom('personFields')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
}
