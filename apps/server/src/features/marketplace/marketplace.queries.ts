import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

export interface NewMarketplaceCode {
  codeHash: string;
  codeHint: string;
  planName: string;
  peopleUpperLimit: number;
}

/** The code's row, locked until the transaction ends, so two redemptions of one code queue and the second sees it used. */
export function lockCode(trx: Database, codeHash: string) {
  return trx
    .selectFrom('marketplaceCodes')
    .select(['codeHash', 'codeHint', 'planName', 'peopleUpperLimit', 'redeemedAt', 'redeemedByAccountId'])
    .where('codeHash', '=', codeHash)
    .forUpdate()
    .executeTakeFirst();
}

export async function markCodeRedeemed(trx: Database, codeHash: string, accountId: number): Promise<void> {
  await trx
    .updateTable('marketplaceCodes')
    .set({ redeemedAt: sql<Date>`now()`, redeemedByAccountId: accountId })
    .where('codeHash', '=', codeHash)
    .where('redeemedAt', 'is', null)
    .execute();
}

/** The plan the account has now (columns of migration 0029), for the rule that a code never lowers it. */
export function findAccountPlan(trx: Database, accountId: number) {
  return trx
    .selectFrom('accounts')
    .select(['status', 'planName', 'planPeopleUpperLimit', 'planProvider'])
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
}

/** Adds the codes not known yet in one statement; answers the hashes it added. */
export async function insertCodes(db: Database, codes: NewMarketplaceCode[]): Promise<Set<string>> {
  if (codes.length === 0) return new Set();
  const rows = await db
    .insertInto('marketplaceCodes')
    .values(codes)
    .onConflict((oc) => oc.column('codeHash').doNothing())
    .returning('codeHash')
    .execute();
  return new Set(rows.map((row) => row.codeHash));
}

/** Every code, oldest first, for the operator's list. */
export function listCodes(db: Database) {
  return db
    .selectFrom('marketplaceCodes')
    .select(['codeHint', 'planName', 'peopleUpperLimit', 'createdAt', 'redeemedAt', 'redeemedByAccountId'])
    .orderBy('createdAt')
    .orderBy('codeHash')
    .execute();
}

/** The codes redeemed onto one account, newest first. */
export function listRedemptions(db: Database, accountId: number) {
  return db
    .selectFrom('marketplaceCodes')
    .select(['codeHint', 'planName', 'peopleUpperLimit', 'redeemedAt'])
    .where('redeemedByAccountId', '=', accountId)
    .orderBy('redeemedAt', 'desc')
    .execute();
}
