import { segmentMessages, type ConditionNode } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { segmentFilter, validateConditions } from '../src/index.ts';
import { data, db, expectSameAsReference, segments, useCompileDataSet } from './compile-context.ts';
import { evaluate } from './reference-evaluator.ts';
import { contextFor, selectIds, sorted } from './support.ts';

useCompileDataSet();

/** The compiled SQL text and its bound values. */
function compiled(nodes: ConditionNode[]) {
  return segmentFilter(nodes, contextFor(data, segments)).compile(db);
}

describe('segment compiler', () => {
  it('filters every table by the account and binds every value as a parameter', () => {
    const hostile = "'; drop table people; --";
    const { sql: text, parameters } = compiled([
      { type: 'field', field: 'plan', operator: 'contains', value: hostile },
      { type: 'tag', operator: 'has', tag: hostile },
      {
        type: 'event',
        name: hostile,
        count: { operator: 'atLeast', value: 3 },
        window: { type: 'inTheLast', days: 3 },
        properties: [{ key: hostile, operator: 'equals', value: hostile }],
      },
      {
        type: 'pageVisited',
        performed: true,
        match: 'pattern',
        url: `${hostile}*`,
        window: { type: 'ever' },
      },
      {
        type: 'emailActivity',
        activity: 'opened',
        performed: false,
        subject: { type: 'flow', id: 2 },
        window: { type: 'ever' },
      },
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
    [
      'event',
      {
        type: 'event',
        name: 'Ordered',
        count: { operator: 'atLeast', value: 2 },
        window: { type: 'ever' },
        properties: [],
      },
      1,
      1,
    ],
    [
      'emailActivity',
      {
        type: 'emailActivity',
        activity: 'opened',
        performed: true,
        subject: { type: 'any' },
        window: { type: 'ever' },
      },
      1,
      1,
    ],
    [
      'pageVisited',
      { type: 'pageVisited', performed: true, match: 'contains', url: '/pricing', window: { type: 'ever' } },
      1,
      1,
    ],
    ['formSubmitted', { type: 'formSubmitted', performed: false, window: { type: 'ever' } }, 1, 1],
    [
      'segment (inlined with its own account filter)',
      { type: 'segment', operator: 'in', segmentId: 501 },
      2,
      0,
    ],
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
      await expect(
        selectIds(db, [{ type: 'field', field: 'plan', operator: 'contains', value }], ctx),
      ).resolves.toBeDefined();
      const byTag = await selectIds(db, [{ type: 'tag', operator: 'has', tag: value }], ctx);
      expect(sorted(byTag)).toEqual(
        sorted(
          evaluate(
            [{ type: 'tag', operator: 'has', tag: value }],
            data,
            ctx.fieldTypes,
            ctx.segments,
            ctx.now,
          ),
        ),
      );
    }
    await expectSameAsReference(
      [
        {
          type: 'pageVisited',
          performed: true,
          match: 'pattern',
          url: '*100%_real',
          window: { type: 'ever' },
        },
      ],
      { nonTrivial: false },
    );
    const literal = await selectIds(
      db,
      [
        {
          type: 'pageVisited',
          performed: true,
          match: 'pattern',
          url: '*100__real',
          window: { type: 'ever' },
        },
      ],
      ctx,
    );
    expect(literal.size).toBe(0);
    expect(
      (await sql<{ n: number }>`select count(*)::int as n from people`.execute(db)).rows[0]!.n,
    ).toBeGreaterThan(0);
  });

  it.each<[string, ConditionNode[], string, number?]>([
    [
      'an unknown field',
      [{ type: 'field', field: 'shoeSize', operator: 'equals', value: '1' }],
      segmentMessages.unknownField('shoeSize'),
    ],
    [
      'an operator not for the type',
      [{ type: 'field', field: 'score', operator: 'startsWith', value: '1' }],
      segmentMessages.operatorNotForType('startsWith', 'number'),
    ],
    [
      'a missing value',
      [{ type: 'field', field: 'plan', operator: 'equals' }],
      segmentMessages.valueRequired('equals'),
    ],
    [
      'a malformed date',
      [{ type: 'field', field: 'renewal', operator: 'on', value: '15/06/2026' }],
      'Dates are written YYYY-MM-DD.',
    ],
    [
      'an impossible day',
      [{ type: 'created', operator: 'before', value: '2026-02-30' }],
      'Dates are written YYYY-MM-DD.',
    ],
    [
      'a negative day count',
      [{ type: 'field', field: 'renewal', operator: 'withinLast', value: -3 }],
      'Enter a whole number of days (0 to 36500).',
    ],
    [
      'a window that ends before it starts',
      [
        {
          type: 'formSubmitted',
          performed: true,
          window: { type: 'between', from: '2026-05-01', to: '2026-04-01' },
        },
      ],
      'The window starts after it ends.',
    ],
    [
      'an unknown segment',
      [{ type: 'segment', operator: 'in', segmentId: 9 }],
      segmentMessages.unknownSegment(9),
    ],
    ['itself', [{ type: 'segment', operator: 'in', segmentId: 501 }], segmentMessages.cycle, 501],
  ])('refuses %s', (_label, nodes, message, selfId) => {
    expect(validateConditions(nodes, contextFor(data, segments), selfId)).toBe(message);
  });

  it('refuses a cycle through other segments, and the compiler guards against one too', () => {
    const loop = {
      601: [{ type: 'segment', operator: 'in', segmentId: 602 }],
      602: [{ type: 'segment', operator: 'notIn', segmentId: 601 }],
    } as Record<number, ConditionNode[]>;
    const ctx = contextFor(data, loop);
    expect(validateConditions([{ type: 'segment', operator: 'in', segmentId: 601 }], ctx)).toBe(
      segmentMessages.cycle,
    );
    expect(validateConditions([{ type: 'segment', operator: 'in', segmentId: 602 }], ctx, 601)).toBe(
      segmentMessages.cycle,
    );
    expect(() => segmentFilter([{ type: 'segment', operator: 'in', segmentId: 601 }], ctx)).toThrow(
      segmentMessages.cycle,
    );
  });
});
