import { sql } from 'kysely';
import type { ScopeState } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';

export const sessionLifetimeDays = 30;

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

/** The account a user lands in: the one they used last, else their oldest membership. */
export async function findDefaultMembership(db: Database, userId: number) {
  const recent = await db
    .selectFrom('sessions')
    .innerJoin('teamMembers', (j) =>
      j.onRef('teamMembers.accountId', '=', 'sessions.accountId').onRef('teamMembers.userId', '=', 'sessions.userId'),
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

export async function insertSession(
  db: Database,
  row: { id: string; userId: number; accountId: number; userAgent: string | null; ip: string | null },
) {
  await db
    .insertInto('sessions')
    .values({ ...row, expiresAt: sql<Date>`now() + ${`${sessionLifetimeDays} days`}::interval` })
    .execute();
}

/** The live session with the member it acts as; undefined if expired, unknown, or no longer a member. */
export async function findSession(db: Database, id: string) {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('teamMembers', (j) =>
      j.onRef('teamMembers.accountId', '=', 'sessions.accountId').onRef('teamMembers.userId', '=', 'sessions.userId'),
    )
    .select([
      'sessions.id',
      'sessions.userId',
      'sessions.accountId',
      'sessions.lastSeenAt',
      'teamMembers.id as teamMemberId',
      'teamMembers.isOwner',
      'teamMembers.scopes',
    ])
    .where('sessions.id', '=', id)
    .where('sessions.expiresAt', '>', sql<Date>`now()`)
    .where('teamMembers.acceptedAt', 'is not', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return { ...row, scopes: row.scopes as unknown as ScopeState[] };
}

/** Record activity at most every five minutes, so reads do not write on every request. */
export async function touchSession(db: Database, id: string) {
  await db
    .updateTable('sessions')
    .set({ lastSeenAt: sql<Date>`now()` })
    .where('id', '=', id)
    .where('lastSeenAt', '<', sql<Date>`now() - interval '5 minutes'`)
    .execute();
}

export async function deleteSession(db: Database, id: string) {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

export async function deleteSessionsOfUser(db: Database, userId: number) {
  await db.deleteFrom('sessions').where('userId', '=', userId).execute();
}

export async function setPasswordHash(db: Database, userId: number, passwordHash: string) {
  await db
    .updateTable('users')
    .set({ passwordHash, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId)
    .execute();
}

export async function insertPasswordReset(db: Database, row: { id: string; userId: number; ttlSeconds: number }) {
  await db
    .insertInto('passwordResets')
    .values({ id: row.id, userId: row.userId, expiresAt: sql<Date>`now() + ${`${row.ttlSeconds} seconds`}::interval` })
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
