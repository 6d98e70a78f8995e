import { sql } from 'kysely';
import type { ScopeState } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';

const memberColumns = [
  'teamMembers.id',
  'teamMembers.accountId',
  'teamMembers.name',
  'teamMembers.isOwner',
  'teamMembers.scopes',
  'teamMembers.acceptedAt',
  'teamMembers.createdAt',
  'teamMembers.userId',
  'teamMembers.invitedBy',
  'users.name as userName',
  'users.email',
  'users.createdWithGoogle',
] as const;

export function listMembers(db: Database, accountId: number) {
  return db
    .selectFrom('teamMembers')
    .innerJoin('users', 'users.id', 'teamMembers.userId')
    .select(memberColumns)
    .where('teamMembers.accountId', '=', accountId)
    .orderBy('teamMembers.id')
    .execute();
}

export function findMember(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('teamMembers')
    .innerJoin('users', 'users.id', 'teamMembers.userId')
    .select(memberColumns)
    .where('teamMembers.accountId', '=', accountId)
    .where('teamMembers.id', '=', id)
    .executeTakeFirst();
}

export type MemberRow = NonNullable<Awaited<ReturnType<typeof findMember>>>;

export function findMemberByUser(db: Database, accountId: number, userId: number) {
  return db
    .selectFrom('teamMembers')
    .select(['id', 'acceptedAt'])
    .where('accountId', '=', accountId)
    .where('userId', '=', userId)
    .executeTakeFirst();
}

export async function insertMember(
  db: Database,
  row: {
    accountId: number;
    userId: number;
    name: string | null;
    isOwner: boolean;
    scopes: ScopeState[];
    invitedBy: number | null;
    accepted: boolean;
  },
) {
  return db
    .insertInto('teamMembers')
    .values({
      accountId: row.accountId,
      userId: row.userId,
      name: row.name,
      isOwner: row.isOwner,
      scopes: JSON.stringify(row.scopes),
      invitedBy: row.invitedBy,
      invitedAt: sql<Date>`now()`,
      acceptedAt: row.accepted ? sql<Date>`now()` : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export async function updateMember(
  db: Database,
  accountId: number,
  id: number,
  changes: { name?: string; scopes?: ScopeState[] },
) {
  if (changes.name === undefined && changes.scopes === undefined) return;
  await db
    .updateTable('teamMembers')
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.scopes !== undefined ? { scopes: JSON.stringify(changes.scopes) } : {}),
    })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .execute();
}

export async function countOwners(db: Database, accountId: number) {
  const row = await db
    .selectFrom('teamMembers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('accountId', '=', accountId)
    .where('isOwner', '=', true)
    .where('acceptedAt', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deleteMember(db: Database, accountId: number, id: number) {
  await db.deleteFrom('teamMembers').where('accountId', '=', accountId).where('id', '=', id).execute();
}

/** A user's sessions in one account end when they leave it (sessions are user-level rows). */
export async function deleteSessionsInAccount(userDb: Database, accountId: number, userId: number) {
  await userDb
    .deleteFrom('sessions')
    .where('accountId', '=', accountId)
    .where('userId', '=', userId)
    .execute();
}

export async function acceptMembership(userDb: Database, accountId: number, id: number) {
  return userDb
    .updateTable('teamMembers')
    .set({ acceptedAt: sql<Date>`now()` })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .where('acceptedAt', 'is', null)
    .returning(['userId'])
    .executeTakeFirst();
}

export function insertUser(userDb: Database, email: string, name: string | null) {
  return userDb.insertInto('users').values({ email, name }).returning('id').executeTakeFirstOrThrow();
}

/** The user's membership of an account as a permission check needs it: accepted, in an account not being deleted. */
export async function findMemberAccess(userDb: Database, accountId: number, userId: number) {
  const row = await userDb
    .selectFrom('teamMembers')
    .innerJoin('accounts', 'accounts.id', 'teamMembers.accountId')
    .select(['teamMembers.id', 'teamMembers.isOwner', 'teamMembers.scopes'])
    .where('teamMembers.accountId', '=', accountId)
    .where('teamMembers.userId', '=', userId)
    .where('teamMembers.acceptedAt', 'is not', null)
    .where('accounts.deletingAt', 'is', null)
    .executeTakeFirst();
  return row
    ? { id: row.id, isOwner: row.isOwner, scopes: row.scopes as unknown as ScopeState[] }
    : undefined;
}
