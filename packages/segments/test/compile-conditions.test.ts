import type { ConditionNode } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { explainQuery, isTimeRelative } from '../src/index.ts';
import { conditionCompilers } from '../src/registry.ts';
import { data, db, expectSameAsReference, useCompileDataSet } from './compile-context.ts';
import { contextFor, selectIds, sorted } from './support.ts';

useCompileDataSet();

describe('segment compiler', () => {
  it('has a compiler for every condition type', () => {
    expect(Object.keys(conditionCompilers).sort()).toEqual([
      'created',
      'emailActivity',
      'event',
      'field',
      'formSubmitted',
      'pageVisited',
      'segment',
      'status',
      'tag',
    ]);
  });

  it.each<[string, ConditionNode]>([
    ['string equals (any case)', { type: 'field', field: 'plan', operator: 'equals', value: 'PRO' }],
    ['string not equals', { type: 'field', field: 'plan', operator: 'notEquals', value: 'pro' }],
    ['contains', { type: 'field', field: 'plan', operator: 'contains', value: 'r' }],
    ['not contains', { type: 'field', field: 'plan', operator: 'notContains', value: 'r' }],
    ['starts with', { type: 'field', field: 'firstName', operator: 'startsWith', value: 'a' }],
    ['ends with', { type: 'field', field: 'email', operator: 'endsWith', value: '1@example.com' }],
    ['is set', { type: 'field', field: 'plan', operator: 'isSet' }],
    ['is not set', { type: 'field', field: 'plan', operator: 'isNotSet' }],
    [
      'number greater than (bad stored values ignored)',
      { type: 'field', field: 'score', operator: 'greaterThan', value: 50 },
    ],
    ['number less than', { type: 'field', field: 'score', operator: 'lessThan', value: 20 }],
    [
      'number is not set (text in a number field counts as not set)',
      { type: 'field', field: 'score', operator: 'isNotSet' },
    ],
    ['boolean true', { type: 'field', field: 'newsletter', operator: 'isTrue' }],
    ['boolean false', { type: 'field', field: 'newsletter', operator: 'isFalse' }],
    ['enum equals', { type: 'field', field: 'tier', operator: 'equals', value: 'gold' }],
    ['date before', { type: 'field', field: 'renewal', operator: 'before', value: '2026-06-01' }],
    ['date after', { type: 'field', field: 'renewal', operator: 'after', value: '2026-06-15' }],
    ['date within the next N days', { type: 'field', field: 'renewal', operator: 'withinNext', value: 90 }],
    ['date within the last N days', { type: 'field', field: 'renewal', operator: 'withinLast', value: 90 }],
    ['date more than N days ago', { type: 'field', field: 'renewal', operator: 'moreThanAgo', value: 30 }],
    ['created anniversary', { type: 'field', field: 'createdAt', operator: 'anniversary' }],
    ['unsubscribed field', { type: 'field', field: 'unsubscribed', operator: 'isTrue' }],
    ['has tag', { type: 'tag', operator: 'has', tag: 'vip' }],
    ['has not tag', { type: 'tag', operator: 'hasNot', tag: 'vip' }],
    [
      'event at least twice ever',
      {
        type: 'event',
        name: 'Order completed',
        count: { operator: 'atLeast', value: 2 },
        window: { type: 'ever' },
        properties: [],
      },
    ],
    [
      'event never',
      {
        type: 'event',
        name: 'Order completed',
        count: { operator: 'atMost', value: 0 },
        window: { type: 'ever' },
        properties: [],
      },
    ],
    [
      'event exactly once in the last 60 days',
      {
        type: 'event',
        name: 'Signed in',
        count: { operator: 'exactly', value: 1 },
        window: { type: 'inTheLast', days: 60 },
        properties: [],
      },
    ],
    [
      'event with a property',
      {
        type: 'event',
        name: 'Viewed product',
        count: { operator: 'atLeast', value: 1 },
        window: { type: 'ever' },
        properties: [{ key: 'plan', operator: 'equals', value: 'pro' }],
      },
    ],
    [
      'event between dates',
      {
        type: 'event',
        name: 'Signed in',
        count: { operator: 'atLeast', value: 1 },
        window: { type: 'between', from: '2026-03-01', to: '2026-05-31' },
        properties: [],
      },
    ],
    [
      'opened any email',
      {
        type: 'emailActivity',
        activity: 'opened',
        performed: true,
        subject: { type: 'any' },
        window: { type: 'ever' },
      },
    ],
    [
      'did not open any email',
      {
        type: 'emailActivity',
        activity: 'opened',
        performed: false,
        subject: { type: 'any' },
        window: { type: 'ever' },
      },
    ],
    [
      'sent email 2',
      {
        type: 'emailActivity',
        activity: 'sent',
        performed: true,
        subject: { type: 'email', id: 2 },
        window: { type: 'ever' },
      },
    ],
    ['in a segment', { type: 'segment', operator: 'in', segmentId: 501 }],
    ['not in a segment', { type: 'segment', operator: 'notIn', segmentId: 501 }],
    [
      'visited a page (contains)',
      { type: 'pageVisited', performed: true, match: 'contains', url: 'PRICING', window: { type: 'ever' } },
    ],
    [
      'visited a page (pattern)',
      {
        type: 'pageVisited',
        performed: true,
        match: 'pattern',
        url: 'https://site.test/*',
        window: { type: 'ever' },
      },
    ],
    [
      'did not visit a page',
      {
        type: 'pageVisited',
        performed: false,
        match: 'startsWith',
        url: 'https://site.test/blog',
        window: { type: 'inTheLast', days: 30 },
      },
    ],
    [
      'submitted a form',
      { type: 'formSubmitted', performed: true, form: 'newsletter', window: { type: 'ever' } },
    ],
    ['created in the last 100 days', { type: 'created', operator: 'withinLast', value: 100 }],
    ['created before a date', { type: 'created', operator: 'before', value: '2026-01-01' }],
    ['unsubscribed', { type: 'status', status: 'unsubscribed' }],
  ])('%s: the rows equal the reference', async (_label, node) => {
    await expectSameAsReference([node]);
  });

  it('returns archived people only when the tree asks for them, and everyone else for an empty tree', async () => {
    const archived = data.people.filter((p) => p.archived).map((p) => p.id);
    expect(archived.length).toBeGreaterThan(0);
    expect(sorted(await selectIds(db, [{ type: 'status', status: 'archived' }], contextFor(data)))).toEqual(
      sorted(archived),
    );
    expect((await selectIds(db, [], contextFor(data))).size).toBe(data.people.length - archived.length);
    await expectSameAsReference([{ type: 'group', operator: 'or', conditions: [] }], { nonTrivial: false });
  });

  it('joins groups with AND and OR, nested', async () => {
    await expectSameAsReference([
      {
        type: 'group',
        operator: 'or',
        conditions: [
          { type: 'tag', operator: 'has', tag: 'lead' },
          { type: 'field', field: 'score', operator: 'greaterThan', value: 80 },
        ],
      },
      {
        type: 'group',
        operator: 'and',
        conditions: [
          { type: 'status', status: 'subscribed' },
          { type: 'segment', operator: 'notIn', segmentId: 501 },
        ],
      },
    ]);
  });

  it('knows which trees move with time alone', () => {
    const ctx = contextFor(data, { 701: [{ type: 'created', operator: 'withinLast', value: 30 }] });
    expect(isTimeRelative([{ type: 'tag', operator: 'has', tag: 'x' }], ctx)).toBe(false);
    expect(
      isTimeRelative([{ type: 'field', field: 'renewal', operator: 'before', value: '2026-01-01' }], ctx),
    ).toBe(false);
    expect(isTimeRelative([{ type: 'field', field: 'renewal', operator: 'anniversary' }], ctx)).toBe(true);
    expect(
      isTimeRelative(
        [
          {
            type: 'group',
            operator: 'or',
            conditions: [
              {
                type: 'pageVisited',
                performed: true,
                match: 'contains',
                url: 'x',
                window: { type: 'inTheLast', days: 3 },
              },
            ],
          },
        ],
        ctx,
      ),
    ).toBe(true);
    expect(isTimeRelative([{ type: 'segment', operator: 'notIn', segmentId: 701 }], ctx)).toBe(true);
  });

  it('explains each condition for a person, agreeing with the filter', async () => {
    const nodes: ConditionNode[] = [
      { type: 'tag', operator: 'has', tag: 'customer' },
      {
        type: 'group',
        operator: 'or',
        conditions: [
          { type: 'field', field: 'score', operator: 'greaterThan', value: 50 },
          { type: 'status', status: 'unsubscribed' },
        ],
      },
    ];
    const ctx = contextFor(data);
    const members = await selectIds(db, nodes, ctx);
    for (const person of data.people.slice(0, 25)) {
      const { query, toVerdicts } = explainQuery(nodes, ctx, person.id);
      const row = (await query.execute(db)).rows[0]!;
      const verdicts = toVerdicts(row);
      expect(row.matches).toBe(members.has(person.id));
      expect(verdicts[0]!.matches).toBe(person.tags.includes('customer'));
      expect(verdicts[1]!.children!.map((v) => v.matches).some(Boolean)).toBe(verdicts[1]!.matches);
      if (!person.archived) expect(row.matches).toBe(verdicts.every((v) => v.matches));
    }
  });
});
