import type { ConditionNode } from '@herald/contracts';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, expect } from 'vitest';
import { validateConditions } from '../src/index.ts';
import { createDataSet, type DataSet } from './data-set.ts';
import { evaluate } from './reference-evaluator.ts';
import { contextFor, openTestDb, selectIds, sorted } from './support.ts';

/**
 * What the segment compiler tests share: the test database, a data set of 80 people (seed 7) in an account of its own,
 * the stored segments conditions may name, and the comparison with the reference evaluator. A test file calls
 * useCompileDataSet() once: its own beforeAll builds the data set and its afterAll closes the database; `db` and
 * `data`, read live by the importers, name the current file's.
 */
export let db: Kysely<any>;
export let data: DataSet;

export function useCompileDataSet(): void {
  beforeAll(async () => {
    db = openTestDb();
    data = await createDataSet(db, 7, 80);
  });
  afterAll(() => db.destroy());
}

export const segments: Record<number, ConditionNode[]> = {
  501: [{ type: 'tag', operator: 'has', tag: 'customer' }],
};

/** The compiled rows equal the reference evaluator's, and the example is not trivial (some in, some out). */
export async function expectSameAsReference(nodes: ConditionNode[], { nonTrivial = true } = {}) {
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
