import fc from 'fast-check';
import { automaticSegmentConditions, type ConditionNode } from '@herald/contracts';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagChangeMatters, tagChangeReads, validateConditions } from '../src/index.ts';
import { stored, tree } from './arbitraries.ts';
import { createDataSet, tagPool, type DataSet } from './data-set.ts';
import { evaluate } from './reference-evaluator.ts';
import { contextFor, openTestDb, selectIds, sorted } from './support.ts';

let db: Kysely<any>;
let data: DataSet;
beforeAll(async () => {
  db = openTestDb();
  data = await createDataSet(db, 42, 120);
});
afterAll(() => db.destroy());

describe('segment compiler against the reference evaluator', () => {
  it('selects the same people for random trees', async () => {
    const ctx = contextFor(data, stored);
    await fc.assert(
      fc.asyncProperty(fc.array(tree, { minLength: 1, maxLength: 3 }), async (nodes) => {
        expect(validateConditions(nodes, ctx)).toBeNull();
        const fromSql = await selectIds(db, nodes, ctx);
        expect(sorted(fromSql)).toEqual(sorted(evaluate(nodes, data, ctx.fieldTypes, ctx.segments, ctx.now)));
      }),
      { numRuns: 150 },
    );
  });

  it('finds the same people after a change of tags that the tree does not read (segment marks by change)', () => {
    const ctx = contextFor(data, stored);
    fc.assert(
      fc.property(
        fc.array(tree, { minLength: 1, maxLength: 3 }),
        fc.subarray(tagPool, { minLength: 1 }),
        (nodes, changed) => {
          fc.pre(!tagChangeMatters(tagChangeReads(nodes, ctx), changed));
          const before = evaluate(nodes, data, ctx.fieldTypes, ctx.segments, ctx.now);
          // Every person has each changed tag toggled: added where it was missing, removed where it was there.
          const toggled = data.people.map((person) => ({
            ...person,
            tags: [
              ...person.tags.filter((t) => !changed.includes(t)),
              ...changed.filter((t) => !person.tags.includes(t)),
            ],
          }));
          const after = evaluate(nodes, { ...data, people: toggled }, ctx.fieldTypes, ctx.segments, ctx.now);
          expect(sorted(after)).toEqual(sorted(before));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads tags through referenced segments, and a tree that reads a changed tag is re-checked', () => {
    const ctx = contextFor(data, stored);
    const reads = tagChangeReads([{ type: 'segment', operator: 'in', segmentId: 802 }], ctx);
    expect([...reads.tags]).toEqual(['customer']);
    expect(tagChangeMatters(reads, ['customer'])).toBe(true);
    expect(tagChangeMatters(reads, ['lead'])).toBe(false);
    expect(tagChangeMatters(reads, null)).toBe(true);
    expect(
      tagChangeMatters(
        tagChangeReads(
          [{ type: 'field', field: 'updatedAt', operator: 'withinLast', value: 3 } as ConditionNode],
          ctx,
        ),
        ['lead'],
      ),
    ).toBe(true);
  });

  it('automatic segments read no tag and not updatedAt (the marking trigger skips them for tag changes)', () => {
    const ctx = contextFor(data, stored);
    for (const conditions of Object.values(automaticSegmentConditions)) {
      const reads = tagChangeReads(conditions, ctx);
      expect([...reads.tags]).toEqual([]);
      expect(reads.updatedAt).toBe(false);
    }
  });
});
