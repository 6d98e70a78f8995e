import {
  formatDollars,
  type BillingAnswer,
  type CheckoutBody,
  type CheckoutProvider,
  type PlanChoicesAnswer,
} from '@herald/contracts';

/** What the upgrade dialog's plan picker decides (docs/billing.md), as plain functions. */

export type PlanGroups = PlanChoicesAnswer['groups'];

/** "growth-monthly-v1:5000" ↔ the plan's name and upper limit (one Select value per option). */
export const planValue = (plan: { name: string; peopleUpperLimit: number }) =>
  `${plan.name}:${plan.peopleUpperLimit}`;

/** The option picked, else the first plan of the first group; null when there is none. */
export function chosenPlan(groups: PlanGroups, picked: string | null): string | null {
  const first = groups[0]?.plans[0];
  return picked ?? (first ? planValue(first) : null);
}

/** The payment providers this server has, card first. */
export function configuredProviders(billing: BillingAnswer): CheckoutProvider[] {
  return (['chargebee', 'paypal'] as const).filter((p) => billing.providers[p]);
}

/** The provider picked while the server still has it, else the first it has; null with none. */
export function chosenProvider(
  providers: CheckoutProvider[],
  picked: CheckoutProvider | null,
): CheckoutProvider | null {
  return picked && providers.includes(picked) ? picked : (providers[0] ?? null);
}

/** Which group the chosen option is in and what is billed, since labels repeat across groups. */
export function billedText(groups: PlanGroups, value: string | null): string | null {
  for (const group of groups) {
    const plan = group.plans.find((p) => planValue(p) === value);
    if (plan && plan.price !== null)
      return `${group.label}: ${formatDollars(plan.price)} billed ${plan.period === 'year' ? 'every year' : 'every month'}.`;
  }
  return null;
}

/** POST /v1/billing/checkout of the chosen option. */
export function checkoutBody(choice: string | null, provider: CheckoutProvider): CheckoutBody {
  const [name, limit] = (choice ?? ':').split(':');
  return { plan: name ?? '', peopleUpperLimit: Number(limit), provider };
}
