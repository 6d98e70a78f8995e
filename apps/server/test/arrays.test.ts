import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intArray } from '../src/db/arrays.ts';
import { createTestContext, type TestContext } from './helpers.ts';

/** Integer arrays are handed to PostgreSQL as one literal; what PostgreSQL reads must be the array given. */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
});

/** Any safe integer, from the most negative to the largest, or null. */
const bigintOrNull = fc.option(fc.maxSafeInteger(), { nil: null });

describe('intArray', () => {
  it('is read by PostgreSQL as the same bigint[] and int[], nulls and order kept', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(bigintOrNull, fc.integer({ min: -5, max: 5 })), { maxLength: 40 }),
        fc.array(fc.option(fc.integer(), { nil: null }), { maxLength: 40 }),
        async (big, small) => {
          const { rows } = await sql<{ big: (string | null)[]; small: (number | null)[]; count: number }>`
          select ${intArray(big)}::bigint[]::text[] as big, ${intArray(small)}::int[] as small,
            (select count(*) from unnest(${intArray(big)}::bigint[]))::int as count`.execute(ctx.database.db);
          const row = rows[0]!;
          // bigint[] read back as text, so no value passes through a JS number on the way back.
          expect(row.big).toEqual(big.map((v) => (v === null ? null : String(v))));
          expect(row.small).toEqual(small);
          expect(row.count).toBe(big.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is an empty array for no values, which any() matches nothing against', async () => {
    const { rows } = await sql<{ hit: boolean; size: number | null }>`
      select 1 = any(${intArray([])}::bigint[]) as hit, cardinality(${intArray([])}::bigint[]) as size`.execute(
      ctx.database.db,
    );
    expect(rows[0]).toEqual({ hit: false, size: 0 });
  });

  it('refuses a value that is not a whole number instead of sending it', () => {
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '7' as unknown as number]) {
      expect(() => intArray([1, bad])).toThrow(TypeError);
    }
  });
});
