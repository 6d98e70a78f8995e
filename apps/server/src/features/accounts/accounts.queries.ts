import { sql, type Updateable } from 'kysely';
import { allScopes, trialDays } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import type { Accounts } from '../../db/schema.generated.ts';
import { randomToken } from '../../lib/tokens.ts';

export function findAccount(db: Database, accountId: number) {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

export function findTeamMember(db: Database, accountId: number, teamMemberId: number) {
  return db
    .selectFrom('teamMembers')
    .innerJoin('users', 'users.id', 'teamMembers.userId')
    .select([
      'teamMembers.id',
      'teamMembers.accountId',
      'teamMembers.isOwner',
      'teamMembers.scopes',
      'teamMembers.name',
      'users.name as userName',
      'users.email',
      'users.createdWithGoogle',
    ])
    .where('teamMembers.accountId', '=', accountId)
    .where('teamMembers.id', '=', teamMemberId)
    .executeTakeFirst();
}

/** Every account the user is a member of, for the account switcher. */
export function listAccountsOfUser(db: Database, userId: number) {
  return db
    .selectFrom('teamMembers')
    .innerJoin('accounts', 'accounts.id', 'teamMembers.accountId')
    .select([
      'accounts.id',
      'accounts.name',
      'accounts.site',
      'accounts.logo',
      'teamMembers.isOwner',
      'accounts.parentAccountId',
    ])
    .where('teamMembers.userId', '=', userId)
    .where('teamMembers.acceptedAt', 'is not', null)
    .where('accounts.deletingAt', 'is', null)
    .orderBy('accounts.id')
    .execute();
}

/** A new user with a new account they own; the first step of registration. */
export async function insertUserWithAccount(
  db: Database,
  input: {
    email: string;
    name: string | null;
    googleSub: string | null;
    source: string | null;
    timezone: string;
  },
) {
  const user = await db
    .insertInto('users')
    .values({
      email: input.email,
      name: input.name,
      googleSub: input.googleSub,
      createdWithGoogle: input.googleSub !== null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const account = await db
    .insertInto('accounts')
    .values({
      email: input.email,
      name: input.name,
      source: input.source,
      timezone: input.timezone,
      writeKey: randomToken(18),
      flags: JSON.stringify({
        hasFilledGoals: false,
        hasSetInitialPassword: false,
        canAccessAIWriter: false,
        hideAnonymous: false,
      }),
      trialEndsAt: sql<Date>`now() + ${`${trialDays} days`}::interval`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.updateTable('accounts').set({ mainAccountId: account.id }).where('id', '=', account.id).execute();
  const member = await db
    .insertInto('teamMembers')
    .values({
      accountId: account.id,
      userId: user.id,
      name: input.name,
      isOwner: true,
      scopes: JSON.stringify(allScopes()),
      acceptedAt: sql<Date>`now()`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { userId: user.id, accountId: account.id, teamMemberId: member.id };
}

export type AccountChanges = Omit<Updateable<Accounts>, 'id' | 'createdAt'>;

export async function updateAccount(db: Database, accountId: number, changes: AccountChanges) {
  if (Object.keys(changes).length === 0) return;
  await db
    .updateTable('accounts')
    .set({ ...changes, updatedAt: sql<Date>`now()` })
    .where('id', '=', accountId)
    .execute();
}

/** Merge keys into a jsonb column (flags, onboarding) in one statement, so concurrent saves both land. */
export async function mergeAccountJson(
  db: Database,
  accountId: number,
  column: 'flags' | 'onboarding',
  values: Record<string, unknown>,
) {
  await db
    .updateTable('accounts')
    .set({
      [column]: sql`${sql.ref(column)} || ${JSON.stringify(values)}::jsonb`,
      updatedAt: sql<Date>`now()`,
    })
    .where('id', '=', accountId)
    .execute();
}

/** Fill the member's and user's names when they have none yet (registration's name step). */
export async function fillMemberName(
  db: Database,
  userDb: Database,
  accountId: number,
  userId: number,
  name: string,
) {
  await db
    .updateTable('teamMembers')
    .set({ name })
    .where('accountId', '=', accountId)
    .where('userId', '=', userId)
    .where('name', 'is', null)
    .execute();
  await userDb
    .updateTable('users')
    .set({ name })
    .where('id', '=', userId)
    .where('name', 'is', null)
    .execute();
}

/** Mark the initial password as set on every account the user owns. */
export async function markPasswordSetOnOwnedAccounts(db: Database, userId: number) {
  await db
    .updateTable('accounts')
    .set({ flags: sql`flags || '{"hasSetInitialPassword": true}'::jsonb` })
    .where(
      'id',
      'in',
      db
        .selectFrom('teamMembers')
        .select('accountId')
        .where('userId', '=', userId)
        .where('isOwner', '=', true),
    )
    .execute();
}

/** The account's connected services that work (docs/team-and-accounts.md). */
export async function activeServiceIds(db: Database, accountId: number): Promise<string[]> {
  const { rows } = await sql<{
    serviceId: string;
  }>`select service_id as "serviceId" from account_services where account_id = ${accountId} and status = 'active' order by service_id`.execute(
    db,
  );
  return rows.map((r) => r.serviceId);
}
