import { lookupPlan, unknownPlanMessage, type Plan, type PlanProvider } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { AppError, badRequest, notFound } from '../../http/errors.ts';
import {
  countAccountPeople,
  findAccountBilling,
  resolvePeopleLimitIssue,
  writeAccountPlan,
} from './billing.queries.ts';

export interface PlanAssignment {
  planName: string;
  peopleUpperLimit: number;
  provider: PlanProvider;
  /** 'active' (the default) or 'canceled' (a provider says the subscription ended; the plan is kept on record). */
  status?: 'active' | 'canceled';
}

export interface AssignedPlan {
  plan: Plan;
  status: 'active' | 'canceled' | 'blocked';
  /** false when the account already had exactly this plan, provider and status (nothing was written). */
  changed: boolean;
}

export const planBelowPeopleCount = (peopleCount: number, plan: Plan) =>
  `This account has ${peopleCount.toLocaleString('en-US')} people, more than the ${plan.peopleUpperLimit.toLocaleString('en-US')} this plan allows. Choose a larger plan, or archive people first.`;

/**
 * Give an account a plan from the catalogue, in one transaction with the account row locked. Refuses an unknown plan
 * ('Unknown plan', 400) and a plan whose upper limit is below the account's people count (422); either way nothing
 * changes. The status becomes active (or canceled when asked), except that a blocked account stays blocked.
 * Idempotent: the same assignment again writes nothing. `db` may be the owner connection or a transaction (also a
 * tenant transaction of this account).
 */
export async function assignPlan(
  db: Database,
  accountId: number,
  assignment: PlanAssignment,
): Promise<AssignedPlan> {
  const plan = lookupPlan(assignment.planName, assignment.peopleUpperLimit);
  if (!plan) throw badRequest(unknownPlanMessage);
  if (db.isTransaction) return assignIn(db, accountId, plan, assignment);
  return db.transaction().execute((trx) => assignIn(trx, accountId, plan, assignment));
}

async function assignIn(
  db: Database,
  accountId: number,
  plan: Plan,
  assignment: PlanAssignment,
): Promise<AssignedPlan> {
  const account = await findAccountBilling(db, accountId, true);
  if (!account) throw notFound('No such account.');
  const wanted = assignment.status ?? 'active';
  const status = account.status === 'blocked' ? 'blocked' : wanted;
  const same =
    account.planName === plan.name &&
    account.planPeopleUpperLimit === plan.peopleUpperLimit &&
    account.planProvider === assignment.provider &&
    account.status === status;
  if (same) return { plan, status, changed: false };
  // A canceled subscription is recorded whatever the count; a plan that would be active must hold the people.
  if (wanted === 'active') {
    const peopleCount = await countAccountPeople(db, accountId);
    if (peopleCount > plan.peopleUpperLimit) {
      throw new AppError('UnprocessableError', planBelowPeopleCount(peopleCount, plan), {
        errorCode: 'plan-below-people-count',
      });
    }
    await resolvePeopleLimitIssue(db, accountId);
  }
  await writeAccountPlan(
    db,
    accountId,
    {
      planName: plan.name,
      planPeopleUpperLimit: plan.peopleUpperLimit,
      planPeriod: plan.period,
      planPrice: plan.price === null ? null : plan.price.toFixed(2),
      planProvider: assignment.provider,
      planSetAt: new Date(),
    },
    status,
  );
  return { plan, status, changed: true };
}
