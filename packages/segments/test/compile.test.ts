import { segmentMessages, type ConditionNode } from '@herald/contracts';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainQuery, isTimeRelative, segmentFilter, validateConditions } from '../src/index.ts';
import { conditionCompilers } from '../src/registry.ts';
import { createDataSet, type DataSet } from './data-set.ts';
import { evaluate } from './reference-evaluator.ts';
import { contextFor, openTestDb, selectIds, sorted } from './support.ts';

let db: Kysely<any>;
let data: DataSet;
beforeAll(async () => {
  db = openTestDb();
  data = await createDataSet(db, 7, 80);
});
afterAll(() => db.destroy());

const segments: Record<number, ConditionNode[]> = { 501: [{ type: 'tag', operator: 'has', tag: 'customer' }] };

/** The compiled rows equal the reference evaluator's, and the example is not trivial (some in, some out). */
async function expectSameAsReference(nodes: ConditionNode[], { nonTrivial = true } = {}) {
  const ctx = contextFor(data, segments);
  expect(validateConditions(nodes, ctx)).toBeNull();
  const fromSql = await selectIds(db, nodes, ctx);
  const expected = evaluate(nodes, data, ctx.fieldTypes, ctx.segments, ctx.now);
  expect(sorted(fromSql)).toEqual(sorted(expected));
  if (nonTrivial) {
    expect(fromSql.size).toBeGreaterThan(0);
    expect(fromSql.size).toBeLessThan(data.people.filter((p) => !p.archived).length);
  }
}

/** The compiled SQL text and its bound values. */
function compiled(nodes: ConditionNode[]) {
  return segmentFilter(nodes, contextFor(data, segments)).compile(db);
}

describe('segment compiler', () => {
  it('has a compiler for every condition type', () => {
    expect(Object.keys(conditionCompilers).sort()).toEqual(['created', 'emailActivity', 'event', 'field', 'formSubmitted', 'pageVisited', 'segment', 'status', 'tag']);
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
    ['number greater than (bad stored values ignored)', { type: 'field', field: 'score', operator: 'greaterThan', value: 50 }],
    ['number less than', { type: 'field', field: 'score', operator: 'lessThan', value: 20 }],
    ['number is not set (text in a number field counts as not set)', { type: 'field', field: 'score', operator: 'isNotSet' }],
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
    ['event at least twice ever', { type: 'event', name: 'Order completed', count: { operator: 'atLeast', value: 2 }, window: { type: 'ever' }, properties: [] }],
    ['event never', { type: 'event', name: 'Order completed', count: { operator: 'atMost', value: 0 }, window: { type: 'ever' }, properties: [] }],
    ['event exactly once in the last 60 days', { type: 'event', name: 'Signed in', count: { operator: 'exactly', value: 1 }, window: { type: 'inTheLast', days: 60 }, properties: [] }],
    ['event with a property', { type: 'event', name: 'Viewed product', count: { operator: 'atLeast', value: 1 }, window: { type: 'ever' }, properties: [{ key: 'plan', operator: 'equals', value: 'pro' }] }],
    ['event between dates', { type: 'event', name: 'Signed in', count: { operator: 'atLeast', value: 1 }, window: { type: 'between', from: '2026-03-01', to: '2026-05-31' }, properties: [] }],
    ['opened any email', { type: 'emailActivity', activity: 'opened', performed: true, subject: { type: 'any' }, window: { type: 'ever' } }],
    ['did not open any email', { type: 'emailActivity', activity: 'opened', performed: false, subject: { type: 'any' }, window: { type: 'ever' } }],
    ['sent email 2', { type: 'emailActivity', activity: 'sent', performed: true, subject: { type: 'email', id: 2 }, window: { type: 'ever' } }],
    ['in a segment', { type: 'segment', operator: 'in', segmentId: 501 }],
    ['not in a segment', { type: 'segment', operator: 'notIn', segmentId: 501 }],
    ['visited a page (contains)', { type: 'pageVisited', performed: true, match: 'contains', url: 'PRICING', window: { type: 'ever' } }],
    ['visited a page (pattern)', { type: 'pageVisited', performed: true, match: 'pattern', url: 'https://site.test/*', window: { type: 'ever' } }],
    ['did not visit a page', { type: 'pageVisited', performed: false, match: 'startsWith', url: 'https://site.test/blog', window: { type: 'inTheLast', days: 30 } }],
    ['submitted a form', { type: 'formSubmitted', performed: true, form: 'newsletter', window: { type: 'ever' } }],
    ['created in the last 100 days', { type: 'created', operator: 'withinLast', value: 100 }],
    ['created before a date', { type: 'created', operator: 'before', value: '2026-01-01' }],
    ['unsubscribed', { type: 'status', status: 'unsubscribed' }],
  ])('%s: the rows equal the reference', async (_label, node) => {
    await expectSameAsReference([node]);
  });

  it('returns archived people only when the tree asks for them, and everyone else for an empty tree', async () => {
    const archived = data.people.filter((p) => p.archived).map((p) => p.id);
    expect(archived.length).toBeGreaterThan(0);
    expect(sorted(await selectIds(db, [{ type: 'status', status: 'archived' }], contextFor(data)))).toEqual(sorted(archived));
    expect((await selectIds(db, [], contextFor(data))).size).toBe(data.people.length - archived.length);
    await expectSameAsReference([{ type: 'group', operator: 'or', conditions: [] }], { nonTrivial: false });
  });

  it('joins groups with AND and OR, nested', async () => {
    await expectSameAsReference([
      { type: 'group', operator: 'or', conditions: [{ type: 'tag', operator: 'has', tag: 'lead' }, { type: 'field', field: 'score', operator: 'greaterThan', value: 80 }] },
      { type: 'group', operator: 'and', conditions: [{ type: 'status', status: 'subscribed' }, { type: 'segment', operator: 'notIn', segmentId: 501 }] },
    ]);
  });

  it('filters every table by the account and binds every value as a parameter', () => {
    const hostile = "'; drop table people; --";
    const { sql: text, parameters } = compiled([
      { type: 'field', field: 'plan', operator: 'contains', value: hostile },
      { type: 'tag', operator: 'has', tag: hostile },
      { type: 'event', name: hostile, count: { operator: 'atLeast', value: 3 }, window: { type: 'inTheLast', days: 3 }, properties: [{ key: hostile, operator: 'equals', value: hostile }] },
      { type: 'pageVisited', performed: true, match: 'pattern', url: `${hostile}*`, window: { type: 'ever' } },
      { type: 'emailActivity', activity: 'opened', performed: false, subject: { type: 'flow', id: 2 }, window: { type: 'ever' } },
      { type: 'formSubmitted', performed: true, form: hostile, window: { type: 'ever' } },
      { type: 'segment', operator: 'in', segmentId: 501 },
    ]);
    expect(text).not.toContain('drop table');
    expect(parameters).toContain(hostile);
    expect(text).toContain('p.account_id = $1::bigint');
    // Every events subquery starts from the account: one per event-like condition.
    expect(text.match(/e\.account_id = \$\d+::bigint/g)?.length).toBe(4);
    expect(parameters.filter((p) => p === data.accountId).length).toBeGreaterThanOrEqual(6);
  });

  it.each<[string, ConditionNode, number, number]>([
    ['field', { type: 'field', field: 'plan', operator: 'equals', value: 'pro' }, 1, 0],
    ['tag', { type: 'tag', operator: 'has', tag: 'customer' }, 1, 0],
    ['created', { type: 'created', operator: 'withinLast', value: 30 }, 1, 0],
    ['status', { type: 'status', status: 'unsubscribed' }, 1, 0],
    ['event', { type: 'event', name: 'Ordered', count: { operator: 'atLeast', value: 2 }, window: { type: 'ever' }, properties: [] }, 1, 1],
    ['emailActivity', { type: 'emailActivity', activity: 'opened', performed: true, subject: { type: 'any' }, window: { type: 'ever' } }, 1, 1],
    ['pageVisited', { type: 'pageVisited', performed: true, match: 'contains', url: '/pricing', window: { type: 'ever' } }, 1, 1],
    ['formSubmitted', { type: 'formSubmitted', performed: false, window: { type: 'ever' } }, 1, 1],
    ['segment (inlined with its own account filter)', { type: 'segment', operator: 'in', segmentId: 501 }, 2, 0],
  ])('filters by the account for a %s condition', (_label, node, peopleFilters, eventFilters) => {
    const { sql: text, parameters } = compiled([node]);
    const bound = (pattern: RegExp) => [...text.matchAll(pattern)].map((m) => parameters[Number(m[1]) - 1]);
    expect(bound(/p\.account_id = \$(\d+)::bigint/g)).toEqual(Array(peopleFilters).fill(data.accountId));
    expect(bound(/e\.account_id = \$(\d+)::bigint/g)).toEqual(Array(eventFilters).fill(data.accountId));
    expect(text.match(/from events/g)?.length ?? 0).toBe(eventFilters);
  });

  it('takes hostile and LIKE-special text literally', async () => {
    const ctx = contextFor(data);
    for (const value of ["'; drop table people; --", '%', '_', '\\', '50%_off', "o'brien"]) {
      await expect(selectIds(db, [{ type: 'field', field: 'plan', operator: 'contains', value }], ctx)).resolves.toBeDefined();
      const byTag = await selectIds(db, [{ type: 'tag', operator: 'has', tag: value }], ctx);
      expect(sorted(byTag)).toEqual(sorted(evaluate([{ type: 'tag', operator: 'has', tag: value }], data, ctx.fieldTypes, ctx.segments, ctx.now)));
    }
    await expectSameAsReference([{ type: 'pageVisited', performed: true, match: 'pattern', url: '*100%_real', window: { type: 'ever' } }], { nonTrivial: false });
    const literal = await selectIds(db, [{ type: 'pageVisited', performed: true, match: 'pattern', url: '*100__real', window: { type: 'ever' } }], ctx);
    expect(literal.size).toBe(0);
    expect((await sql<{ n: number }>`select count(*)::int as n from people`.execute(db)).rows[0]!.n).toBeGreaterThan(0);
  });

  it.each<[string, ConditionNode[], string, number?]>([
    ['an unknown field', [{ type: 'field', field: 'shoeSize', operator: 'equals', value: '1' }], segmentMessages.unknownField('shoeSize')],
    ['an operator not for the type', [{ type: 'field', field: 'score', operator: 'startsWith', value: '1' }], segmentMessages.operatorNotForType('startsWith', 'number')],
    ['a missing value', [{ type: 'field', field: 'plan', operator: 'equals' }], segmentMessages.valueRequired('equals')],
    ['a malformed date', [{ type: 'field', field: 'renewal', operator: 'on', value: '15/06/2026' }], 'Dates are written YYYY-MM-DD.'],
    ['an impossible day', [{ type: 'created', operator: 'before', value: '2026-02-30' }], 'Dates are written YYYY-MM-DD.'],
    ['a negative day count', [{ type: 'field', field: 'renewal', operator: 'withinLast', value: -3 }], 'Enter a whole number of days (0 to 36500).'],
    ['a window that ends before it starts', [{ type: 'formSubmitted', performed: true, window: { type: 'between', from: '2026-05-01', to: '2026-04-01' } }], 'The window starts after it ends.'],
    ['an unknown segment', [{ type: 'segment', operator: 'in', segmentId: 9 }], segmentMessages.unknownSegment(9)],
    ['itself', [{ type: 'segment', operator: 'in', segmentId: 501 }], segmentMessages.cycle, 501],
  ])('refuses %s', (_label, nodes, message, selfId) => {
    expect(validateConditions(nodes, contextFor(data, segments), selfId)).toBe(message);
  });

  it('refuses a cycle through other segments, and the compiler guards against one too', () => {
    const loop = { 601: [{ type: 'segment', operator: 'in', segmentId: 602 }], 602: [{ type: 'segment', operator: 'notIn', segmentId: 601 }] } as Record<number, ConditionNode[]>;
    const ctx = contextFor(data, loop);
    expect(validateConditions([{ type: 'segment', operator: 'in', segmentId: 601 }], ctx)).toBe(segmentMessages.cycle);
    expect(validateConditions([{ type: 'segment', operator: 'in', segmentId: 602 }], ctx, 601)).toBe(segmentMessages.cycle);
    expect(() => segmentFilter([{ type: 'segment', operator: 'in', segmentId: 601 }], ctx)).toThrow(segmentMessages.cycle);
  });

  it('knows which trees move with time alone', () => {
    const ctx = contextFor(data, { 701: [{ type: 'created', operator: 'withinLast', value: 30 }] });
    expect(isTimeRelative([{ type: 'tag', operator: 'has', tag: 'x' }], ctx)).toBe(false);
    expect(isTimeRelative([{ type: 'field', field: 'renewal', operator: 'before', value: '2026-01-01' }], ctx)).toBe(false);
    expect(isTimeRelative([{ type: 'field', field: 'renewal', operator: 'anniversary' }], ctx)).toBe(true);
    expect(isTimeRelative([{ type: 'group', operator: 'or', conditions: [{ type: 'pageVisited', performed: true, match: 'contains', url: 'x', window: { type: 'inTheLast', days: 3 } }] }], ctx)).toBe(true);
    expect(isTimeRelative([{ type: 'segment', operator: 'notIn', segmentId: 701 }], ctx)).toBe(true);
  });

  it('explains each condition for a person, agreeing with the filter', async () => {
    const nodes: ConditionNode[] = [
      { type: 'tag', operator: 'has', tag: 'customer' },
      { type: 'group', operator: 'or', conditions: [{ type: 'field', field: 'score', operator: 'greaterThan', value: 50 }, { type: 'status', status: 'unsubscribed' }] },
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
