import fc from 'fast-check';
import { operatorsByFieldType, type Condition, type ConditionNode, type TimeWindow } from '@herald/contracts';
import { eventNames, forms, tagPool } from './data-set.ts';

/** Random condition trees over the test data set's fields, tags, events, pages and forms (property tests). */
/** Stored segments the random trees may refer to (no cycles: 802 refers to 801). */
export const stored: Record<number, ConditionNode[]> = {
  801: [{ type: 'tag', operator: 'has', tag: 'customer' }],
  802: [
    {
      type: 'group',
      operator: 'or',
      conditions: [
        { type: 'segment', operator: 'notIn', segmentId: 801 },
        { type: 'field', field: 'score', operator: 'greaterThan', value: 60 },
      ],
    },
  ],
};

const fields = {
  plan: 'string',
  firstName: 'string',
  email: 'string',
  tier: 'enum',
  score: 'number',
  newsletter: 'boolean',
  unsubscribed: 'boolean',
  renewal: 'date',
  createdAt: 'date',
} as const;
const day = fc.integer({ min: 0, max: 400 });
const isoDay = fc
  .integer({ min: -300, max: 300 })
  .map((d) => new Date(Date.UTC(2026, 5, 15) + d * 86_400_000).toISOString().slice(0, 10));
const isoInstant = fc
  .integer({ min: -300 * 24, max: 300 * 24 })
  .map((h) => new Date(Date.UTC(2026, 5, 15, 12) + h * 3_600_000).toISOString());
export const window: fc.Arbitrary<TimeWindow> = fc.oneof(
  fc.constant<TimeWindow>({ type: 'ever' }),
  fc.integer({ min: 1, max: 150 }).map<TimeWindow>((days) => ({ type: 'inTheLast', days })),
  fc.tuple(isoDay, fc.integer({ min: 0, max: 120 })).map<TimeWindow>(([from, length]) => ({
    type: 'between',
    from,
    to: new Date(Date.parse(from) + length * 86_400_000).toISOString().slice(0, 10),
  })),
);

const fieldCondition: fc.Arbitrary<Condition> = fc
  .constantFrom(...(Object.keys(fields) as (keyof typeof fields)[]))
  .chain((field) => {
    const type = fields[field];
    return fc.constantFrom(...operatorsByFieldType[type]).chain((operator): fc.Arbitrary<Condition> => {
      const base = { type: 'field' as const, field, operator };
      if (['isSet', 'isNotSet', 'isTrue', 'isFalse', 'anniversary'].includes(operator))
        return fc.constant(base);
      if (type === 'number') return fc.integer({ min: 0, max: 100 }).map((value) => ({ ...base, value }));
      if (type === 'date') {
        if (['withinLast', 'withinNext', 'moreThanAgo'].includes(operator))
          return day.map((value) => ({ ...base, value }));
        return fc.oneof(isoDay, isoInstant).map((value) => ({ ...base, value }));
      }
      return fc
        .constantFrom('pro', 'PRO', 'free', 'plan', 'a', 'ada', 'example.com', 'gold', '%', '_', 'zz')
        .map((value) => ({ ...base, value }));
    });
  });

export const condition: fc.Arbitrary<Condition> = fc.oneof(
  fieldCondition,
  fc.record({
    type: fc.constant('tag' as const),
    operator: fc.constantFrom('has' as const, 'hasNot' as const),
    tag: fc.constantFrom(...tagPool, 'nobody-has-this'),
  }),
  fc.record({
    type: fc.constant('event' as const),
    name: fc.constantFrom(...eventNames),
    count: fc.record({
      operator: fc.constantFrom('atLeast' as const, 'atMost' as const, 'exactly' as const),
      value: fc.integer({ min: 0, max: 3 }),
    }),
    window,
    properties: fc.array(
      fc.oneof(
        fc.record({
          key: fc.constantFrom('plan', 'amount', 'missing'),
          operator: fc.constantFrom('equals' as const, 'notEquals' as const, 'contains' as const),
          value: fc.constantFrom('pro', 'free', '1', 'r', 'u'),
        }),
        fc.record({
          key: fc.constantFrom('plan', 'amount', 'missing'),
          operator: fc.constant('exists' as const),
        }),
      ),
      { maxLength: 2 },
    ),
  }),
  fc.record({
    type: fc.constant('emailActivity' as const),
    activity: fc.constantFrom(
      'sent' as const,
      'opened' as const,
      'clicked' as const,
      'bounced' as const,
      'unsubscribed' as const,
    ),
    performed: fc.boolean(),
    subject: fc.oneof(
      fc.constant({ type: 'any' as const }),
      fc.record({
        type: fc.constantFrom('email' as const, 'flow' as const, 'broadcast' as const),
        id: fc.constantFrom(1, 2, 3, 7),
      }),
    ),
    window,
  }),
  fc.record({
    type: fc.constant('segment' as const),
    operator: fc.constantFrom('in' as const, 'notIn' as const),
    segmentId: fc.constantFrom(1, 801, 802),
  }),
  fc.record({
    type: fc.constant('pageVisited' as const),
    performed: fc.boolean(),
    match: fc.constantFrom('equals' as const, 'contains' as const, 'startsWith' as const, 'pattern' as const),
    url: fc.constantFrom(
      'https://site.test/pricing',
      'PRICING',
      'https://site.test/',
      '*docs*',
      'https://*.test/*',
      '*%_real',
      'blog',
    ),
    window,
  }),
  fc
    .record({
      type: fc.constant('formSubmitted' as const),
      performed: fc.boolean(),
      form: fc.option(fc.constantFrom(...forms, 'newsletter'), { nil: undefined }),
      window,
    })
    .map((c) => {
      const { form, ...rest } = c;
      return form === undefined ? rest : c;
    }),
  fc.oneof(
    fc.record({
      type: fc.constant('created' as const),
      operator: fc.constantFrom('before' as const, 'after' as const, 'on' as const),
      value: isoDay,
    }),
    fc.record({
      type: fc.constant('created' as const),
      operator: fc.constantFrom('withinLast' as const, 'moreThanAgo' as const),
      value: day,
    }),
  ),
  fc.record({
    type: fc.constant('status' as const),
    status: fc.constantFrom('unsubscribed' as const, 'subscribed' as const, 'archived' as const),
  }),
);

export const tree = fc.letrec<{ node: ConditionNode; group: ConditionNode }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, condition, tie('group')),
  group: fc.record({
    type: fc.constant('group' as const),
    operator: fc.constantFrom('and' as const, 'or' as const),
    conditions: fc.array(tie('node'), { maxLength: 3 }),
  }),
})).node;
