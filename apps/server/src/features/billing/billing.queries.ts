import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

/** The account's status, trial end and plan columns; `forUpdate` locks the row for a plan change. */
export function findAccountBilling(db: Database, accountId: number, forUpdate = false) {
  const query = db
    .selectFrom('accounts')
    .select([
      'id',
      'status',
      'trialEndsAt',
      'planName',
      'planPeopleUpperLimit',
      'planPeriod',
      'planPrice',
      'planProvider',
      'planSetAt',
    ])
    .where('id', '=', accountId);
  return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
}
export type AccountBillingRow = NonNullable<Awaited<ReturnType<typeof findAccountBilling>>>;

export interface PlanColumns {
  planName: string;
  planPeopleUpperLimit: number;
  planPeriod: string;
  planPrice: string | null;
  planProvider: string;
  planSetAt: Date;
}

export async function writeAccountPlan(
  db: Database,
  accountId: number,
  plan: PlanColumns,
  status: string,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ ...plan, status })
    .where('id', '=', accountId)
    .execute();
}

/**
 * People that count toward the plan: every person not archived, counted as the account answer counts them (an
 * index-only count over the primary key).
 */
export async function countAccountPeople(db: Database, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('people')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('accountId', '=', accountId)
    .where('archivedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Trials whose end has passed become trialExpired; returns the ids moved. */
export async function expireTrials(db: Database, now: Date): Promise<number[]> {
  const rows = await db
    .updateTable('accounts')
    .set({ status: 'trialExpired' })
    .where('status', '=', 'trial')
    .where('trialEndsAt', '<=', now)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Accounts with a plan and their people count, for the limit sweep (one grouped query). */
export function accountsWithPlanUsage(db: Database) {
  return db
    .selectFrom('accounts')
    .select(['accounts.id', 'accounts.planPeopleUpperLimit'])
    .select((eb) =>
      eb
        .selectFrom('people')
        .select((p) => p.fn.countAll<number>().as('n'))
        .whereRef('people.accountId', '=', 'accounts.id')
        .where('people.archivedAt', 'is', null)
        .as('peopleCount'),
    )
    .where('accounts.planName', 'is not', null)
    .where('accounts.deletingAt', 'is', null)
    .execute();
}

export const peopleLimitIssueKind = 'people-limit';

/** Opens the account's people-limit issue unless one is open (a unique index keeps it to one). */
export async function openPeopleLimitIssue(db: Database, accountId: number, message: string): Promise<void> {
  await sql`
    insert into account_issues (account_id, kind, message)
    values (${accountId}, ${peopleLimitIssueKind}, ${message})
    on conflict (account_id) where kind = ${sql.lit(peopleLimitIssueKind)} and resolved_at is null do nothing
  `.execute(db);
}

export async function resolvePeopleLimitIssue(db: Database, accountId: number): Promise<void> {
  await db
    .updateTable('accountIssues')
    .set({ resolvedAt: new Date() })
    .where('accountId', '=', accountId)
    .where('kind', '=', peopleLimitIssueKind)
    .where('resolvedAt', 'is', null)
    .execute();
}
