import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { ConditionNode } from '@herald/contracts';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClickHouse, type ClickHouse } from '../../../apps/server/src/db/clickhouse.ts';
import { clickhouseTime, migrateClickHouse } from '../../../apps/server/src/db/clickhouse-schema.ts';
import {
  eventConditionKey,
  eventConditionsOf,
  eventSetQuery,
  validateConditions,
  type CompileContext,
  type EventSet,
} from '../src/index.ts';
import { stored, tree } from './arbitraries.ts';
import { createDataSet, type DataSet } from './data-set.ts';
import { evaluate } from './reference-evaluator.ts';
import { contextFor, openTestDb, selectIds, sorted } from './support.ts';

/**
 * The same segments on both event stores: the data set's events are written to PostgreSQL and to ClickHouse (the
 * engine embedded through chdb), and every random tree must select the same people whether its event conditions
 * read PostgreSQL's events table or ClickHouse's answers (docs/segments.md, "Segments on ClickHouse").
 */
let db: Kysely<any>;
let data: DataSet;
let ch: ClickHouse;
let directory: string;

beforeAll(async () => {
  db = openTestDb();
  data = await createDataSet(db, 77, 150);
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-segments-ch-'));
  ch = await connectClickHouse(`chdb:${directory}`);
  await migrateClickHouse(ch, undefined);
  await ch.insert(
    'events',
    data.events.map((e, i) => ({
      account_id: data.accountId,
      person_id: e.personId,
      created_at: clickhouseTime(e.createdAt),
      id: i + 1,
      type: e.type,
      name: e.name,
      url: e.url,
      data: JSON.stringify(e.data),
      source: 'api',
    })),
  );
});
afterAll(async () => {
  await ch?.close();
  await db?.destroy();
  if (directory) fs.rmSync(directory, { recursive: true, force: true });
});

/** The tree's event conditions answered by ClickHouse, as the compile context carries them. */
async function withEventSets(nodes: readonly ConditionNode[], ctx: CompileContext): Promise<CompileContext> {
  const sets = new Map<string, EventSet>();
  for (const condition of eventConditionsOf(nodes, ctx)) {
    const { query, params, complement } = eventSetQuery(condition, ctx);
    sets.set(eventConditionKey(condition), { ids: query ? await ch.numbers(query, params) : [], complement });
  }
  return { ...ctx, eventSets: sets };
}

describe('segments with events in ClickHouse', () => {
  it('stored every event once', async () => {
    const [count] = await ch.numbers('SELECT count() FROM events WHERE account_id = {a:UInt64}', {
      a: data.accountId,
    });
    expect(count).toBe(data.events.length);
    expect(data.events.length).toBeGreaterThan(200);
  });

  it('select the same people as on PostgreSQL and as the reference evaluator, for random trees', async () => {
    const ctx = contextFor(data, stored);
    let withEvents = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(tree, { minLength: 1, maxLength: 3 }), async (nodes) => {
        expect(validateConditions(nodes, ctx)).toBeNull();
        const onClickHouse = await selectIds(db, nodes, await withEventSets(nodes, ctx));
        const onPostgres = await selectIds(db, nodes, ctx);
        expect(sorted(onClickHouse)).toEqual(sorted(onPostgres));
        expect(sorted(onClickHouse)).toEqual(
          sorted(evaluate(nodes, data, ctx.fieldTypes, ctx.segments, ctx.now)),
        );
        if (eventConditionsOf(nodes, ctx).length > 0) withEvents += 1;
      }),
      { numRuns: 150 },
    );
    // The trees must have asked ClickHouse something: most of them hold an event condition.
    expect(withEvents).toBeGreaterThan(50);
  });

  it('answers each event condition type with a set or its complement', async () => {
    const ctx = contextFor(data, stored);
    const cases: ConditionNode[] = [
      {
        type: 'event',
        name: 'Signed in',
        count: { operator: 'atMost', value: 1 },
        window: { type: 'ever' },
        properties: [],
      },
      {
        type: 'event',
        name: 'Order completed',
        count: { operator: 'exactly', value: 0 },
        window: { type: 'inTheLast', days: 30 },
        properties: [],
      },
      {
        type: 'event',
        name: 'Order completed',
        count: { operator: 'atLeast', value: 2 },
        window: { type: 'ever' },
        properties: [{ key: 'plan', operator: 'equals', value: 'pro' }],
      },
      {
        type: 'event',
        name: 'Signed in',
        count: { operator: 'atLeast', value: 1 },
        window: { type: 'ever' },
        properties: [{ key: 'missing', operator: 'notEquals', value: 'null' }],
      },
      {
        type: 'event',
        name: 'Viewed product',
        count: { operator: 'atLeast', value: 1 },
        window: { type: 'ever' },
        properties: [{ key: 'amount', operator: 'equals', value: '1' }],
      },
      {
        type: 'emailActivity',
        activity: 'opened',
        performed: false,
        subject: { type: 'email', id: 2 },
        window: { type: 'ever' },
      },
      {
        type: 'pageVisited',
        performed: true,
        match: 'pattern',
        url: 'https://*.test/*',
        window: { type: 'ever' },
      },
      { type: 'formSubmitted', performed: true, form: 'newsletter', window: { type: 'inTheLast', days: 60 } },
    ];
    for (const node of cases) {
      const onClickHouse = await selectIds(db, [node], await withEventSets([node], ctx));
      const expected = evaluate([node], data, ctx.fieldTypes, ctx.segments, ctx.now);
      expect(sorted(onClickHouse), JSON.stringify(node)).toEqual(sorted(expected));
      // Each case selects somebody and leaves somebody out, so a wrong set or a lost complement shows.
      expect(expected.size, JSON.stringify(node)).toBeGreaterThan(0);
      expect(expected.size, JSON.stringify(node)).toBeLessThan(data.people.length);
    }
  });
});
