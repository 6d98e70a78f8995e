/**
 * The plan catalogue (docs/billing.md). Owner: the plans helper (docs/billing.md "Plans, trial and
 * limits"). Prices are dollars; `price: null` where the spec does not show a price.
 */
import { z } from 'zod';

export const planPeriods = ['month', 'year', 'lifetime'] as const;
export const planTiers = ['growth', 'premium'] as const;

export const Plan = z.object({
  name: z.string(),
  humanName: z.string(),
  peopleLowerLimit: z.number().int(),
  peopleUpperLimit: z.number().int(),
  period: z.enum(planPeriods),
  price: z.number().nullable(),
  tier: z.enum(planTiers),
});
export type Plan = z.infer<typeof Plan>;
export type PlanPeriod = Plan['period'];
export type PlanTier = Plan['tier'];

export const unknownPlanMessage = 'Unknown plan';

/** docs/billing.md: upper limit → [growth monthly, growth annual, premium monthly, premium annual]. */
export const specPlanTable: readonly (readonly [number, number, number, number | null, number | null])[] = [
  [2000, 49, 488, 59, 588],
  [5000, 99, 988, 119, 1188],
  [10000, 179, 1788, 199, 1988],
  [15000, 249, 2488, 299, 2988],
  [20000, 299, 2988, 359, 3588],
  [25000, 349, 3488, 419, 4188],
  [30000, 389, 3888, 479, 4788],
  [40000, 449, 4488, 549, 5488],
  [50000, 499, 4988, 599, 5988],
  [70000, 599, 5988, 699, 6988],
  [100000, 799, 7988, 949, 9488],
  [150000, 999, 9988, 1199, 11988],
  [200000, 1199, 11988, null, null],
  [250000, 1399, 13988, null, null],
  [300000, 1599, 15988, null, null],
];

/** The people-count bands; a band starts one above the previous band's upper limit (the first at 0). */
function lowerLimitOf(upper: number, uppers: readonly number[]): number {
  const i = uppers.indexOf(upper);
  return i <= 0 ? 0 : (uppers[i - 1] ?? 0) + 1;
}

function series(
  name: string,
  humanName: string,
  tier: PlanTier,
  period: PlanPeriod,
  rows: readonly (readonly [number, number | null])[],
): Plan[] {
  const uppers = rows.map(([u]) => u);
  return rows.map(([peopleUpperLimit, price]) => ({
    name,
    humanName,
    peopleLowerLimit: lowerLimitOf(peopleUpperLimit, uppers),
    peopleUpperLimit,
    period,
    price,
    tier,
  }));
}

const growthRows = specPlanTable.map(([u, m, a]) => [u, m, a] as const);
const premiumRows = specPlanTable
  .filter(([, , , pm]) => pm !== null)
  .map(([u, , , m, a]) => [u, m, a] as const);

export const growthMonthlyPlans = series(
  'growth-monthly-v1',
  'Growth',
  'growth',
  'month',
  growthRows.map(([u, m]) => [u, m]),
);
export const growthAnnualPlans = series(
  'growth-annual-v1',
  'Growth (annual)',
  'growth',
  'year',
  growthRows.map(([u, , a]) => [u, a]),
);
export const premiumMonthlyPlans = series(
  'premium-monthly-v3',
  'Premium',
  'premium',
  'month',
  premiumRows.map(([u, m]) => [u, m]),
);
export const premiumAnnualPlans = series(
  'premium-annual-v3',
  'Premium (annual)',
  'premium',
  'year',
  premiumRows.map(([u, , a]) => [u, a]),
);

/** Grandfathered premium plans: existing subscriptions keep them; never offered; prices not shown by the spec. */
export const grandfatheredPlans = [
  ...series(
    'premium-monthly-v2',
    'Premium (legacy)',
    'premium',
    'month',
    premiumRows.map(([u]) => [u, null]),
  ),
  ...series(
    'premium-annual',
    'Premium annual (legacy)',
    'premium',
    'year',
    premiumRows.map(([u]) => [u, null]),
  ),
];

/** The spec's ends of the marketplace list (docs/billing.md: "about half price (25.5 up to 499.5)"). */
export const marketplacePriceRange = { lowest: 25.5, highest: 499.5 } as const;

/**
 * Marketplace growth monthly: the spec's 25.5 for the first band, then half the growth monthly price of each band up
 * to 150000 people (499.5, the spec's upper end).
 */
export const marketplacePlans = series(
  'marketplace-growth-monthly-v1',
  'Growth (marketplace)',
  'growth',
  'month',
  growthRows
    .filter(([u]) => u <= 150000)
    .map(([u, m], index) => [u, index === 0 ? marketplacePriceRange.lowest : m / 2]),
);

/**
 * Payment-provider (PayPal subscriber tier) plans. Monthly uses the growth monthly bands up to 20000 (49…299);
 * annual is 20% off monthly, rounded down to whole dollars per month, times 12 (468…2868); lifetime 79 for 2000 or
 * 5000 people.
 */
const paypalMonthlyRows = growthRows.filter(([u]) => u <= 20000).map(([u, m]) => [u, m] as const);
export const paypalPlans = [
  ...series('paypal-lifetime-v1', 'Lifetime', 'growth', 'lifetime', [
    [2000, 79],
    [5000, 79],
  ]),
  ...series('paypal-monthly-v1', 'Growth (PayPal)', 'growth', 'month', paypalMonthlyRows),
  ...series(
    'paypal-annual-v1',
    'Growth annual (PayPal)',
    'growth',
    'year',
    paypalMonthlyRows.map(([u, m]) => [u, Math.floor(m * 0.8) * 12]),
  ),
];

export const allPlans: readonly Plan[] = [
  ...growthMonthlyPlans,
  ...growthAnnualPlans,
  ...premiumMonthlyPlans,
  ...premiumAnnualPlans,
  ...grandfatheredPlans,
  ...marketplacePlans,
  ...paypalPlans,
];

/** The plan with this name and people upper limit, or undefined. */
export function lookupPlan(name: string, peopleUpperLimit: number): Plan | undefined {
  return allPlans.find((p) => p.name === name && p.peopleUpperLimit === peopleUpperLimit);
}

export class UnknownPlanError extends Error {
  constructor() {
    super(unknownPlanMessage);
    this.name = 'UnknownPlanError';
  }
}

/** docs/billing.md: the plan with this name and people limit; throws UnknownPlanError ('Unknown plan') otherwise. */
export function findPlan(name: string, peopleUpperLimit: number): Plan {
  const plan = lookupPlan(name, peopleUpperLimit);
  if (!plan) throw new UnknownPlanError();
  return plan;
}

export const planGroupLabels = [
  'Monthly Growth',
  'Monthly Premium',
  'Annual Growth - 2 Months Free',
  'Annual Premium - 2 Months Free',
] as const;
export type PlanGroupLabel = (typeof planGroupLabels)[number];

/** Dollars as the dialog shows them: whole dollars without cents, otherwise two decimals. */
export function formatDollars(amount: number): string {
  const cents = Math.round(amount * 100);
  const digits = cents % 100 === 0 ? 0 : 2;
  return `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

const count = (n: number) => n.toLocaleString('en-US');

/** The per-month price a plan is advertised at: annual plans are their yearly price over 12. */
export function monthlyPrice(plan: Plan): number | null {
  if (plan.price === null) return null;
  return plan.period === 'year' ? plan.price / 12 : plan.price;
}

export const annualNote = '(billed yearly) - 2 Months Free!';
export const marketplaceDiscountNote = '(marketplace discount: half price)';
/** The payment-provider (PayPal tier) annual options say 20% off (docs/billing.md). */
export const paypalAnnualNote = '(billed yearly) - 20% off';

/** docs/billing.md: 'low - high People: $price per month', plus the annual and marketplace notes. */
export function planOptionLabel(plan: Plan): string {
  const range = `${count(plan.peopleLowerLimit)} - ${count(plan.peopleUpperLimit)} People`;
  const perMonth = monthlyPrice(plan);
  if (plan.period === 'lifetime')
    return `${range}: ${plan.price === null ? 'price on request' : formatDollars(plan.price)} once`;
  const base = `${range}: ${perMonth === null ? 'price on request' : `${formatDollars(perMonth)} per month`}`;
  if (plan.period === 'year')
    return `${base} ${plan.name.startsWith('paypal-') ? paypalAnnualNote : annualNote}`;
  if (plan.name === 'marketplace-growth-monthly-v1') return `${base} ${marketplaceDiscountNote}`;
  return base;
}

export type PlanChoiceGroup = { label: PlanGroupLabel; plans: Plan[] };

/**
 * docs/billing.md: the picker offers only plans whose upper limit exceeds the current one. A marketplace account's
 * Monthly Growth group is the marketplace list; the other groups are the same for everyone.
 */
export function planChoices(
  currentUpperLimit: number | null,
  options: { marketplace?: boolean } = {},
): PlanChoiceGroup[] {
  const above = (plans: readonly Plan[]) =>
    plans.filter((p) => currentUpperLimit === null || p.peopleUpperLimit > currentUpperLimit);
  const groups: PlanChoiceGroup[] = [
    { label: 'Monthly Growth', plans: above(options.marketplace ? marketplacePlans : growthMonthlyPlans) },
    { label: 'Monthly Premium', plans: above(premiumMonthlyPlans) },
    { label: 'Annual Growth - 2 Months Free', plans: above(growthAnnualPlans) },
    { label: 'Annual Premium - 2 Months Free', plans: above(premiumAnnualPlans) },
  ];
  return groups.filter((g) => g.plans.length > 0);
}

/** The account's `payment` (docs/billing.md): null when billing is off. */
export const AccountPayment = z.object({
  plan: Plan.nullable(),
  paymentMethod: z.enum(['paypal', 'chargebee']).nullable(),
  appsumo: z.boolean(),
});
export type AccountPayment = z.infer<typeof AccountPayment>;
