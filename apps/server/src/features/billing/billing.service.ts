import {
  hasScopes,
  lookupPlan,
  planChoices,
  planOptionLabel,
  usageLevel,
  type AccountPayment,
  type AccountStatus,
  type BillingAnswer,
  type Plan,
  type PlanChoicesAnswer,
  type PlanProvider,
} from '@herald/contracts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/connection.ts';
import { notFound, unauthorized } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { countAccountPeople, findAccountBilling, type AccountBillingRow } from './billing.queries.ts';

export const billingOffMessage = 'Billing is off on this server: every account is unlimited.';

/**
 * The status an account shows. BILLING_MODE=off: a trial never ends (a stored trialExpired reads as trial). plans:
 * a trial whose end has passed reads as trialExpired at once, before the trial job writes it down.
 */
export function effectiveStatus(
  mode: Config['billing']['mode'],
  status: string,
  trialEndsAt: Date,
  now = Date.now(),
): AccountStatus {
  if (mode === 'off') return status === 'trialExpired' ? 'trial' : (status as AccountStatus);
  return status === 'trial' && trialEndsAt.getTime() <= now ? 'trialExpired' : (status as AccountStatus);
}

/** The catalogue plan an account row holds, with the price it was assigned at; null without a plan. */
export function planOfRow(
  row: Pick<AccountBillingRow, 'planName' | 'planPeopleUpperLimit' | 'planPrice'>,
): Plan | null {
  if (row.planName === null || row.planPeopleUpperLimit === null) return null;
  const plan = lookupPlan(row.planName, row.planPeopleUpperLimit);
  if (!plan) return null;
  return { ...plan, price: row.planPrice === null ? plan.price : Number(row.planPrice) };
}

/** The account answer's `payment` (docs/billing.md): null when billing is off. */
export function accountPayment(
  mode: Config['billing']['mode'],
  row: AccountBillingRow,
): AccountPayment | null {
  if (mode === 'off') return null;
  const provider = row.planProvider as PlanProvider | null;
  return {
    plan: planOfRow(row),
    paymentMethod: provider === 'chargebee' || provider === 'paypal' ? provider : null,
    appsumo: provider === 'marketplace',
  };
}

/** The people limit in force: none when billing is off or the account has no plan (a trial has everything on). */
export function peopleLimitOf(mode: Config['billing']['mode'], row: AccountBillingRow): number | null {
  return mode === 'off' ? null : row.planPeopleUpperLimit;
}

async function billingRow(db: Database, accountId: number): Promise<AccountBillingRow> {
  const row = await findAccountBilling(db, accountId);
  if (!row) throw unauthorized();
  return row;
}

/** GET /v1/billing. */
export async function getBilling(services: Services, db: Database, session: Session): Promise<BillingAnswer> {
  const { mode, chargebee, paypal } = services.config.billing;
  const row = await billingRow(db, session.accountId);
  const peopleCount = await countAccountPeople(db, session.accountId);
  const peopleUpperLimit = peopleLimitOf(mode, row);
  const on = mode === 'plans';
  return {
    mode,
    status: effectiveStatus(mode, row.status, row.trialEndsAt),
    trialEndsAt: row.trialEndsAt.toISOString(),
    plan: on ? planOfRow(row) : null,
    planProvider: on ? (row.planProvider as PlanProvider | null) : null,
    planSetAt: on ? (row.planSetAt?.toISOString() ?? null) : null,
    peopleCount,
    peopleUpperLimit,
    usage: usageLevel(peopleCount, peopleUpperLimit),
    providers: { chargebee: on && chargebee !== undefined, paypal: on && paypal !== undefined },
    canChangePlan: on && hasScopes({ isOwner: session.isOwner, scopes: session.scopes }, ['billing:write']),
    supportEmail: services.config.supportEmail ?? null,
  };
}

/**
 * GET /v1/billing/plans: the upgrade dialog's groups. Only plans above the current upper limit (docs/billing.md; none
 * when the plan was canceled) and, so that no choice is refused later, not below the people count; a marketplace
 * account sees the marketplace list.
 */
export async function getPlanChoices(
  services: Services,
  db: Database,
  session: Session,
): Promise<PlanChoicesAnswer> {
  if (services.config.billing.mode === 'off') throw notFound(billingOffMessage);
  const row = await billingRow(db, session.accountId);
  const peopleCount = await countAccountPeople(db, session.accountId);
  // A canceled plan is no longer in force: coming back, any plan that holds the people may be chosen.
  const current = row.status === 'canceled' ? null : row.planPeopleUpperLimit;
  const groups = planChoices(current, { marketplace: row.planProvider === 'marketplace' })
    .map((group) => ({
      label: group.label,
      plans: group.plans
        .filter((p) => p.peopleUpperLimit >= peopleCount)
        .map((p) => ({ ...p, label: planOptionLabel(p) })),
    }))
    .filter((group) => group.plans.length > 0);
  return { groups };
}
