import { sql } from 'kysely';
import type { ScopeState } from '@herald/contracts';
import type { Database } from '../db/connection.ts';

// The sessions table, read and written by the session cookie (session-cookie.ts): part of the HTTP toolkit, so that
// knowing who asks needs no feature (docs/architecture.md).

export const sessionLifetimeDays = 30;

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
      j
        .onRef('teamMembers.accountId', '=', 'sessions.accountId')
        .onRef('teamMembers.userId', '=', 'sessions.userId'),
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

/** Delete a session; answers whose it was (for the audit log), if it existed. */
export async function deleteSession(db: Database, id: string) {
  return db.deleteFrom('sessions').where('id', '=', id).returning(['userId', 'accountId']).executeTakeFirst();
}
