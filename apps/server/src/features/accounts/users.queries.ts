import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

export function findUserByEmail(db: Database, email: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

export function findUserById(db: Database, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setPasswordHash(db: Database, userId: number, passwordHash: string) {
  await db
    .updateTable('users')
    .set({ passwordHash, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId)
    .execute();
}
