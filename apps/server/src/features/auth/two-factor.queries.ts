import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

// Two-factor rows belong to the login (users), not to an account: read and written on the owner connection.

export function findTwoFactorUser(db: Database, userId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'passwordHash', 'totpSecret', 'totpEnabledAt', 'totpLastStep'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** Keep a new sealed secret while enrolment waits for its first code; never over one that is on. */
export async function setPendingSecret(db: Database, userId: number, sealedSecret: string): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set({ totpSecret: sealedSecret, totpLastStep: null })
    .where('id', '=', userId)
    .where('totpEnabledAt', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return Boolean(row);
}

/** The user's recovery codes become these (hashes), in the caller's transaction. */
async function writeRecoveryCodes(trx: Database, userId: number, codeHashes: string[]) {
  await trx.deleteFrom('twoFactorRecoveryCodes').where('userId', '=', userId).execute();
  await trx
    .insertInto('twoFactorRecoveryCodes')
    .values(codeHashes.map((codeHash) => ({ userId, codeHash })))
    .execute();
}

/** Turn two-factor on with the step of the confirming code and fresh recovery codes (hashes). */
export async function enableTwoFactor(db: Database, userId: number, step: number, codeHashes: string[]) {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('users')
      .set({ totpEnabledAt: sql<Date>`now()`, totpLastStep: step })
      .where('id', '=', userId)
      .where('totpEnabledAt', 'is', null)
      .where('totpSecret', 'is not', null)
      .returning('totpEnabledAt')
      .executeTakeFirst();
    if (!row) return false;
    await writeRecoveryCodes(trx, userId, codeHashes);
    return true;
  });
}

/** Replace the user's recovery codes with fresh ones (hashes), only while two-factor is on: false when it is off. */
export async function replaceRecoveryCodes(db: Database, userId: number, codeHashes: string[]) {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('users')
      .select('id')
      .where('id', '=', userId)
      .where('totpEnabledAt', 'is not', null)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return false;
    await writeRecoveryCodes(trx, userId, codeHashes);
    return true;
  });
}

export async function disableTwoFactor(db: Database, userId: number) {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ totpSecret: null, totpEnabledAt: null, totpLastStep: null })
      .where('id', '=', userId)
      .execute();
    await trx.deleteFrom('twoFactorRecoveryCodes').where('userId', '=', userId).execute();
  });
}

/**
 * Record `step` as the last accepted one, only if it is later than the last: true once per code (and never for an
 * older code), however many requests race with it.
 */
export async function claimTotpStep(db: Database, userId: number, step: number): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set({ totpLastStep: step })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totpLastStep', 'is', null), eb('totpLastStep', '<', step)]))
    .returning('id')
    .executeTakeFirst();
  return Boolean(row);
}

/** Spend a recovery code: true once. */
export async function spendRecoveryCode(db: Database, userId: number, codeHash: string): Promise<boolean> {
  const row = await db
    .updateTable('twoFactorRecoveryCodes')
    .set({ usedAt: sql<Date>`now()` })
    .where('userId', '=', userId)
    .where('codeHash', '=', codeHash)
    .where('usedAt', 'is', null)
    .returning('userId')
    .executeTakeFirst();
  return Boolean(row);
}

export async function countRecoveryCodesLeft(db: Database, userId: number): Promise<number> {
  const row = await db
    .selectFrom('twoFactorRecoveryCodes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('userId', '=', userId)
    .where('usedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function accountRequiresTwoFactor(db: Database, accountId: number): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('requireTwoFactor')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row?.requireTwoFactor ?? false;
}

/** Whether any account the user is an accepted member of requires two-factor. */
export async function anyMembershipRequiresTwoFactor(db: Database, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('teamMembers')
    .innerJoin('accounts', 'accounts.id', 'teamMembers.accountId')
    .select('accounts.id')
    .where('teamMembers.userId', '=', userId)
    .where('teamMembers.acceptedAt', 'is not', null)
    .where('accounts.requireTwoFactor', '=', true)
    .executeTakeFirst();
  return Boolean(row);
}

export async function setAccountRequiresTwoFactor(db: Database, accountId: number, required: boolean) {
  await db.updateTable('accounts').set({ requireTwoFactor: required }).where('id', '=', accountId).execute();
}

/** End every session of the user but one (the one making the change). */
export async function deleteOtherSessions(db: Database, userId: number, keepSessionId: string) {
  await db.deleteFrom('sessions').where('userId', '=', userId).where('id', '!=', keepSessionId).execute();
}

/** Whether the user is an accepted member of the account (a pending sign-in lands there). */
export async function findAcceptedMembership(db: Database, userId: number, accountId: number) {
  return db
    .selectFrom('teamMembers')
    .select(['accountId', 'id'])
    .where('userId', '=', userId)
    .where('accountId', '=', accountId)
    .where('acceptedAt', 'is not', null)
    .executeTakeFirst();
}
