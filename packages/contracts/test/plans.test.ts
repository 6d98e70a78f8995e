import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allPlans,
  findPlan,
  grandfatheredPlans,
  lookupPlan,
  marketplacePlans,
  paypalPlans,
  planChoices,
  planGroupLabels,
  planOptionLabel,
  UnknownPlanError,
  usageLevel,
} from '../src/index.ts';

/** docs/billing.md, copied row by row: upper limit, growth monthly, growth annual, premium monthly, premium annual. */
const spec = `
| 2000 | 49 | 488 | 59 | 588 |
| 5000 | 99 | 988 | 119 | 1188 |
| 10000 | 179 | 1788 | 199 | 1988 |
| 15000 | 249 | 2488 | 299 | 2988 |
| 20000 | 299 | 2988 | 359 | 3588 |
| 25000 | 349 | 3488 | 419 | 4188 |
| 30000 | 389 | 3888 | 479 | 4788 |
| 40000 | 449 | 4488 | 549 | 5488 |
| 50000 | 499 | 4988 | 599 | 5988 |
| 70000 | 599 | 5988 | 699 | 6988 |
| 100000 | 799 | 7988 | 949 | 9488 |
| 150000 | 999 | 9988 | 1199 | 11988 |
| 200000 | 1199 | 11988 | n/a | n/a |
| 250000 | 1399 | 13988 | n/a | n/a |
| 300000 | 1599 | 15988 | n/a | n/a |`
  .trim()
  .split('\n')
  .map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );

const columns = [
  ['growth-monthly-v1', 'month', 'growth'],
  ['growth-annual-v1', 'year', 'growth'],
  ['premium-monthly-v3', 'month', 'premium'],
  ['premium-annual-v3', 'year', 'premium'],
] as const;

describe('the catalogue against the spec table', () => {
  for (const [limit, ...prices] of spec) {
    columns.forEach(([name, period, tier], i) => {
      const price = prices[i]!;
      it(`${name} up to ${limit}: ${price}`, () => {
        if (price === 'n/a') {
          expect(lookupPlan(name, Number(limit))).toBeUndefined();
          expect(() => findPlan(name, Number(limit))).toThrow('Unknown plan');
          return;
        }
        expect(findPlan(name, Number(limit))).toMatchObject({
          name,
          peopleUpperLimit: Number(limit),
          price: Number(price),
          period,
          tier,
        });
      });
    });
  }

  it('has no spec-table plan beyond the table', () => {
    for (const [name] of columns) {
      const ours = allPlans.filter((p) => p.name === name).map((p) => [p.peopleUpperLimit, p.price]);
      const theirs = spec.filter((row) => row[columns.findIndex(([n]) => n === name) + 1] !== 'n/a');
      expect(ours).toHaveLength(theirs.length);
    }
  });

  it('bands follow on from each other: 0 - 2,000, 2,001 - 5,000, …', () => {
    const growth = allPlans.filter((p) => p.name === 'growth-monthly-v1');
    expect(growth[0]).toMatchObject({ peopleLowerLimit: 0, peopleUpperLimit: 2000 });
    for (let i = 1; i < growth.length; i++)
      expect(growth[i]!.peopleLowerLimit).toBe(growth[i - 1]!.peopleUpperLimit + 1);
  });

  it('grandfathered premium-monthly-v2 and premium-annual exist with no price shown', () => {
    expect(new Set(grandfatheredPlans.map((p) => p.name))).toEqual(
      new Set(['premium-monthly-v2', 'premium-annual']),
    );
    expect(grandfatheredPlans.every((p) => p.price === null && p.tier === 'premium')).toBe(true);
    expect(findPlan('premium-monthly-v2', 5000).period).toBe('month');
  });

  it('PayPal tier: lifetime 79 for 2000 or 5000 people, monthly 49 to 299 up to 20000, annual 468 to 2868', () => {
    const of = (name: string) =>
      paypalPlans.filter((p) => p.name === name).map((p) => [p.peopleUpperLimit, p.price]);
    expect(of('paypal-lifetime-v1')).toEqual([
      [2000, 79],
      [5000, 79],
    ]);
    expect(of('paypal-monthly-v1')).toEqual([
      [2000, 49],
      [5000, 99],
      [10000, 179],
      [15000, 249],
      [20000, 299],
    ]);
    expect(of('paypal-annual-v1')).toEqual([
      [2000, 468],
      [5000, 948],
      [10000, 1716],
      [15000, 2388],
      [20000, 2868],
    ]);
  });

  it("marketplace growth monthly runs from the spec's 25.5 up to 499.5, half the growth monthly price after the first band", () => {
    expect(marketplacePlans[0]).toMatchObject({ peopleUpperLimit: 2000, price: 25.5 });
    for (const plan of marketplacePlans.slice(1)) {
      expect(plan.name).toBe('marketplace-growth-monthly-v1');
      expect(plan.price).toBe(findPlan('growth-monthly-v1', plan.peopleUpperLimit).price! / 2);
    }
    expect(marketplacePlans.at(-1)).toMatchObject({ peopleUpperLimit: 150000, price: 499.5 });
  });

  it("a lookup that matches nothing fails with 'Unknown plan'", () => {
    expect(() => findPlan('growth-monthly-v1', 2001)).toThrow(UnknownPlanError);
    expect(() => findPlan('nope', 2000)).toThrow('Unknown plan');
  });
});

describe('option labels (docs/billing.md)', () => {
  it.each([
    ['growth-monthly-v1', 2000, '0 - 2,000 People: $49 per month'],
    ['premium-monthly-v3', 150000, '100,001 - 150,000 People: $1,199 per month'],
    ['growth-annual-v1', 10000, '5,001 - 10,000 People: $149 per month (billed yearly) - 2 Months Free!'],
    ['premium-annual-v3', 2000, '0 - 2,000 People: $49 per month (billed yearly) - 2 Months Free!'],
    [
      'marketplace-growth-monthly-v1',
      2000,
      '0 - 2,000 People: $25.50 per month (marketplace discount: half price)',
    ],
    ['paypal-annual-v1', 2000, '0 - 2,000 People: $39 per month (billed yearly) - 20% off'],
    ['paypal-lifetime-v1', 5000, '2,001 - 5,000 People: $79 once'],
  ] as const)('%s %d reads %s', (name, limit, label) => {
    expect(planOptionLabel(findPlan(name, limit))).toBe(label);
  });
});

describe('the picker (docs/billing.md)', () => {
  const limits = fc.oneof(
    fc.constant(null),
    fc.integer({ min: 0, max: 400000 }),
    fc.constantFrom(...allPlans.map((p) => p.peopleUpperLimit)),
  );

  it('offers only plans whose upper limit exceeds the current one, and every such plan of the four lists', () => {
    fc.assert(
      fc.property(limits, fc.boolean(), (current, marketplace) => {
        const groups = planChoices(current, { marketplace });
        const offered = groups.flatMap((g) => g.plans);
        for (const plan of offered)
          if (current !== null) expect(plan.peopleUpperLimit).toBeGreaterThan(current);
        const lists = [
          marketplace ? 'marketplace-growth-monthly-v1' : 'growth-monthly-v1',
          'premium-monthly-v3',
          'growth-annual-v1',
          'premium-annual-v3',
        ];
        const expected = allPlans.filter(
          (p) => lists.includes(p.name) && (current === null || p.peopleUpperLimit > current),
        );
        expect(offered.length).toBe(expected.length);
      }),
    );
  });

  it('keeps the group order and labels of the dialog, leaving out empty groups', () => {
    fc.assert(
      fc.property(limits, (current) => {
        const labels = planChoices(current).map((g) => g.label);
        expect(labels).toEqual(planGroupLabels.filter((l) => labels.includes(l)));
        expect(planChoices(current).every((g) => g.plans.length > 0)).toBe(true);
      }),
    );
    expect(planChoices(null).map((g) => g.label)).toEqual([...planGroupLabels]);
    expect(planChoices(150000).map((g) => g.label)).toEqual([
      'Monthly Growth',
      'Annual Growth - 2 Months Free',
    ]);
    expect(planChoices(300000)).toEqual([]);
  });

  it('never offers grandfathered or PayPal-tier plans', () => {
    fc.assert(
      fc.property(limits, fc.boolean(), (current, marketplace) => {
        const names = new Set(
          planChoices(current, { marketplace }).flatMap((g) => g.plans.map((p) => p.name)),
        );
        for (const name of [
          'premium-monthly-v2',
          'premium-annual',
          'paypal-lifetime-v1',
          'paypal-monthly-v1',
          'paypal-annual-v1',
        ])
          expect(names.has(name)).toBe(false);
      }),
    );
  });
});

describe('usage level', () => {
  it('ok below 90%, warning from 90%, over from 100%, ok without a limit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        (limit, count) => {
          const level = usageLevel(count, limit);
          expect(level).toBe(count >= limit ? 'over' : count >= limit * 0.9 ? 'warning' : 'ok');
          expect(usageLevel(count, null)).toBe('ok');
        },
      ),
    );
    expect([usageLevel(1799, 2000), usageLevel(1800, 2000), usageLevel(2000, 2000)]).toEqual([
      'ok',
      'warning',
      'over',
    ]);
  });
});
