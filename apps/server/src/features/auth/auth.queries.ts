import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

/** The account a user lands in: the one they used last, else their oldest membership. */
export async function findDefaultMembership(db: Database, userId: number) {
  const recent = await db
    .selectFrom('sessions')
    .innerJoin('teamMembers', (j) =>
      j
        .onRef('teamMembers.accountId', '=', 'sessions.accountId')
        .onRef('teamMembers.userId', '=', 'sessions.userId'),
    )
    .select(['teamMembers.accountId', 'teamMembers.id'])
    .where('sessions.userId', '=', userId)
    .where('teamMembers.acceptedAt', 'is not', null)
    .orderBy('sessions.lastSeenAt', 'desc')
    .executeTakeFirst();
  if (recent) return recent;
  return db
    .selectFrom('teamMembers')
    .select(['accountId', 'id'])
    .where('userId', '=', userId)
    .where('acceptedAt', 'is not', null)
    .orderBy('accountId')
    .executeTakeFirst();
}

export async function deleteSessionsOfUser(db: Database, userId: number) {
  await db.deleteFrom('sessions').where('userId', '=', userId).execute();
}

export async function insertPasswordReset(
  db: Database,
  row: { id: string; userId: number; ttlSeconds: number },
) {
  await db
    .insertInto('passwordResets')
    .values({
      id: row.id,
      userId: row.userId,
      expiresAt: sql<Date>`now() + ${`${row.ttlSeconds} seconds`}::interval`,
    })
    .execute();
}

/** Spend a reset: succeeds once, only before it expires. Returns the user id, or undefined. */
export async function consumePasswordReset(db: Database, id: string): Promise<number | undefined> {
  const row = await db
    .updateTable('passwordResets')
    .set({ usedAt: sql<Date>`now()` })
    .where('id', '=', id)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .returning('userId')
    .executeTakeFirst();
  return row?.userId;
}
