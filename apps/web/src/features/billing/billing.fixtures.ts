import { planChoices, planOptionLabel, type BillingAnswer, type PlanChoicesAnswer } from '@herald/contracts';

/** Billing answers as the API gives them, for the plan picker's tests. */

/** The upgrade dialog's groups for an account whose plan allows `currentLimit` people, labelled as the server labels them. */
export function planGroups(currentLimit: number): PlanChoicesAnswer['groups'] {
  return planChoices(currentLimit).map((group) => ({
    label: group.label,
    plans: group.plans.map((plan) => ({ ...plan, label: planOptionLabel(plan) })),
  }));
}

export function billingAnswer(overrides: Partial<BillingAnswer> = {}): BillingAnswer {
  return {
    mode: 'plans',
    status: 'active',
    trialEndsAt: '2025-01-15T00:00:00.000Z',
    plan: null,
    planProvider: null,
    planSetAt: null,
    peopleCount: 90_000,
    peopleUpperLimit: 100_000,
    usage: 'warning',
    providers: { chargebee: true, paypal: false },
    canChangePlan: true,
    supportEmail: null,
    ...overrides,
  };
}
