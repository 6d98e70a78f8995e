import { usageLevel } from '@herald/contracts';
import { sql } from 'kysely';
import type { Services } from '../../services.ts';
import {
  accountsWithPlanUsage,
  expireTrials,
  openPeopleLimitIssue,
  peopleLimitIssueKind,
  resolvePeopleLimitIssue,
} from './billing.queries.ts';

/** The account issue's text (shown by the 'Pending Account Issues' modal); it says what keeps working. */
export const peopleLimitIssueMessage = (peopleCount: number, limit: number) =>
  `Your account has ${peopleCount.toLocaleString('en-US')} people and your plan includes ${limit.toLocaleString('en-US')}. ` +
  'Nothing has stopped and nothing is deleted: imports, forms and tracking keep adding people and your emails keep going out. ' +
  'Please upgrade your plan in Plan and Billing.';

export interface SweepResult {
  expired: number[];
  opened: number[];
  resolved: number[];
}

/**
 * The billing sweep (job 'billing-sweep', every five minutes). BILLING_MODE=plans: trials whose end has passed become
 * trialExpired; an account at or over its plan's people limit gets one open 'people-limit' issue, which resolves once
 * the count is back under the limit. BILLING_MODE=off: nothing expires and every account is unlimited, so any open
 * people-limit issue is resolved.
 */
export async function runBillingSweep(services: Services, now = new Date()): Promise<SweepResult> {
  const db = services.db;
  if (services.config.billing.mode === 'off') {
    const rows = await db
      .updateTable('accountIssues')
      .set({ resolvedAt: now })
      .where('kind', '=', peopleLimitIssueKind)
      .where('resolvedAt', 'is', null)
      .returning('accountId')
      .execute();
    return { expired: [], opened: [], resolved: rows.map((r) => r.accountId) };
  }
  const expired = await expireTrials(db, now);
  const opened: number[] = [];
  const resolved: number[] = [];
  const open = new Set(
    (
      await db
        .selectFrom('accountIssues')
        .select('accountId')
        .where('kind', '=', peopleLimitIssueKind)
        .where('resolvedAt', 'is', null)
        .execute()
    ).map((r) => r.accountId),
  );
  for (const account of await accountsWithPlanUsage(db)) {
    const count = Number(account.peopleCount ?? 0);
    const over = usageLevel(count, account.planPeopleUpperLimit) === 'over';
    if (over && !open.has(account.id)) {
      await openPeopleLimitIssue(
        db,
        account.id,
        peopleLimitIssueMessage(count, account.planPeopleUpperLimit ?? 0),
      );
      opened.push(account.id);
    } else if (!over && open.has(account.id)) {
      await resolvePeopleLimitIssue(db, account.id);
      resolved.push(account.id);
    }
  }
  // An issue left open on an account that no longer has a plan (removed by an operator) is resolved too.
  const stale = await db
    .updateTable('accountIssues')
    .set({ resolvedAt: now })
    .where('kind', '=', peopleLimitIssueKind)
    .where('resolvedAt', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('accounts')
            .select(sql<number>`1`.as('one'))
            .whereRef('accounts.id', '=', 'accountIssues.accountId')
            .where('accounts.planName', 'is not', null),
        ),
      ),
    )
    .returning('accountId')
    .execute();
  resolved.push(...stale.map((r) => r.accountId));
  return { expired, opened, resolved };
}
