import { describe, expect, it } from 'vitest';
import { billingAnswer, planGroups } from './billing.fixtures.ts';
import {
  billedText,
  checkoutBody,
  chosenPlan,
  chosenProvider,
  configuredProviders,
  planValue,
} from './plan-choice.ts';

const groups = planGroups(100_000);

describe('the plans offered', () => {
  it('are those above the current limit, in the four groups, each band one option', () => {
    expect(groups.map((group) => [group.label, group.plans.map(planValue)])).toEqual([
      [
        'Monthly Growth',
        [
          'growth-monthly-v1:150000',
          'growth-monthly-v1:200000',
          'growth-monthly-v1:250000',
          'growth-monthly-v1:300000',
        ],
      ],
      ['Monthly Premium', ['premium-monthly-v3:150000']],
      [
        'Annual Growth - 2 Months Free',
        [
          'growth-annual-v1:150000',
          'growth-annual-v1:200000',
          'growth-annual-v1:250000',
          'growth-annual-v1:300000',
        ],
      ],
      ['Annual Premium - 2 Months Free', ['premium-annual-v3:150000']],
    ]);
  });

  it('start on the first plan of the first group, until one is picked', () => {
    expect(chosenPlan(groups, null)).toBe('growth-monthly-v1:150000');
    expect(chosenPlan(groups, 'premium-annual-v3:150000')).toBe('premium-annual-v3:150000');
    expect(chosenPlan([], null)).toBeNull();
  });
});

describe('the price shown', () => {
  it('names the group and what is billed each month or year for the chosen people count', () => {
    expect(billedText(groups, 'growth-monthly-v1:150000')).toBe('Monthly Growth: $999 billed every month.');
    expect(billedText(groups, 'premium-monthly-v3:150000')).toBe(
      'Monthly Premium: $1,199 billed every month.',
    );
    expect(billedText(groups, 'growth-annual-v1:200000')).toBe(
      'Annual Growth - 2 Months Free: $11,988 billed every year.',
    );
  });

  it('is left out for a plan without a price or an option not offered', () => {
    const unpriced = [{ ...groups[0]!, plans: [{ ...groups[0]!.plans[0]!, price: null }] }];
    expect(billedText(unpriced, 'growth-monthly-v1:150000')).toBeNull();
    expect(billedText(groups, 'growth-monthly-v1:2000')).toBeNull();
  });
});

describe('the way to pay', () => {
  it('offers the providers the server has, card first, and keeps a pick only while offered', () => {
    const both = configuredProviders(billingAnswer({ providers: { chargebee: true, paypal: true } }));
    expect(both).toEqual(['chargebee', 'paypal']);
    expect(configuredProviders(billingAnswer({ providers: { chargebee: false, paypal: true } }))).toEqual([
      'paypal',
    ]);
    expect(chosenProvider(both, null)).toBe('chargebee');
    expect(chosenProvider(both, 'paypal')).toBe('paypal');
    expect(chosenProvider(['chargebee'], 'paypal')).toBe('chargebee');
    expect(chosenProvider([], null)).toBeNull();
  });
});

describe('the checkout sent', () => {
  it("is the chosen plan's name and people limit, and the provider", () => {
    expect(checkoutBody('premium-annual-v3:150000', 'paypal')).toEqual({
      plan: 'premium-annual-v3',
      peopleUpperLimit: 150000,
      provider: 'paypal',
    });
  });
});
