/**
 * Billing answers (docs/billing.md). Owner: the plans helper (docs/billing.md
 * "Plans, trial and limits").
 */
import { z } from 'zod';
import { AccountStatus } from './accounts.ts';
import { Plan, planGroupLabels, planPeriods, planTiers } from './plans.ts';

export const billingModes = ['off', 'plans'] as const;
export const BillingMode = z.enum(billingModes);
export type BillingMode = z.infer<typeof BillingMode>;

export const planProviders = ['chargebee', 'paypal', 'operator', 'marketplace'] as const;
export const PlanProvider = z.enum(planProviders);
export type PlanProvider = z.infer<typeof PlanProvider>;

export const usageLevels = ['ok', 'warning', 'over'] as const;
export const UsageLevel = z.enum(usageLevels);
export type UsageLevel = z.infer<typeof UsageLevel>;

/** Share of the people upper limit at which the warning shows (90%); 'over' from 100%. */
export const usageWarningRatio = 0.9;

/** 'ok' below 90% of the limit, 'warning' from 90%, 'over' once the count reaches the limit; no limit is 'ok'. */
export function usageLevel(peopleCount: number, peopleUpperLimit: number | null): UsageLevel {
  if (peopleUpperLimit === null || peopleUpperLimit <= 0) return 'ok';
  if (peopleCount >= peopleUpperLimit) return 'over';
  if (peopleCount >= peopleUpperLimit * usageWarningRatio) return 'warning';
  return 'ok';
}

/** GET /v1/billing. */
export const BillingAnswer = z.object({
  mode: BillingMode,
  status: AccountStatus,
  trialEndsAt: z.string(),
  plan: Plan.nullable(),
  /** Who set the plan (a payment provider, the operator command or a marketplace code); null without a plan. */
  planProvider: PlanProvider.nullable(),
  planSetAt: z.string().nullable(),
  peopleCount: z.number().int(),
  /** null: unlimited (billing off). During a trial without a plan: the trial allowance. */
  peopleUpperLimit: z.number().int().nullable(),
  usage: UsageLevel,
  providers: z.object({ chargebee: z.boolean(), paypal: z.boolean() }),
  /** The member may change the plan (owner or billing:write) and billing is on. */
  canChangePlan: z.boolean(),
  /** Address the dialog names when no payment provider is configured; null when the server has none. */
  supportEmail: z.string().nullable(),
});
export type BillingAnswer = z.infer<typeof BillingAnswer>;

export const PlanChoice = z.object({
  name: z.string(),
  humanName: z.string(),
  peopleLowerLimit: z.number().int(),
  peopleUpperLimit: z.number().int(),
  period: z.enum(planPeriods),
  tier: z.enum(planTiers),
  price: z.number().nullable(),
  /** Exactly as the dialog shows it, e.g. '0 - 2,000 People: $49 per month'. */
  label: z.string(),
});
export type PlanChoice = z.infer<typeof PlanChoice>;

/** GET /v1/billing/plans: the upgrade dialog's groups, only plans above the current upper limit. */
export const PlanChoicesAnswer = z.object({
  groups: z.array(z.object({ label: z.enum(planGroupLabels), plans: z.array(PlanChoice) })),
});
export type PlanChoicesAnswer = z.infer<typeof PlanChoicesAnswer>;
