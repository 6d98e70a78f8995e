import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

// The user's own sessions across their accounts (the sessions table is the login's, not an account's): read and
// written on the owner connection by user id.

export function listLiveSessions(db: Database, userId: number) {
  return db
    .selectFrom('sessions')
    .select(['id', 'handle', 'userAgent', 'ip', 'createdAt', 'lastSeenAt'])
    .where('userId', '=', userId)
    .where('expiresAt', '>', sql<Date>`now()`)
    .orderBy('lastSeenAt', 'desc')
    .execute();
}

export function findSessionByHandle(db: Database, userId: number, handle: string) {
  return db
    .selectFrom('sessions')
    .select(['id'])
    .where('userId', '=', userId)
    .where('handle', '=', handle)
    .where('expiresAt', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

export async function deleteSessionById(db: Database, userId: number, id: string) {
  await db.deleteFrom('sessions').where('userId', '=', userId).where('id', '=', id).execute();
}

/** End every session of the user but `keepSessionId`; answers how many ended. */
export async function deleteOtherSessionsCounted(db: Database, userId: number, keepSessionId: string) {
  const rows = await db
    .deleteFrom('sessions')
    .where('userId', '=', userId)
    .where('id', '!=', keepSessionId)
    .returning('id')
    .execute();
  return rows.length;
}
