import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AbTestInput, abTestLimits, abTestMessages, abTestSplit, abTestVariantAt } from '../src/ab-tests.ts';

describe('abTestSplit', () => {
  it('splits the example of the issue: 20% of 1,240 to two variants, 992 for the winner', () => {
    expect(abTestSplit(1240, 20, 2)).toEqual({ variants: [124, 124], test: 248, rest: 992 });
    expect(abTestSplit(10, 25, 3)).toEqual({ variants: [1, 1, 1], test: 3, rest: 7 });
    expect(abTestSplit(11, 50, 4)).toEqual({ variants: [2, 2, 1, 1], test: 6, rest: 5 });
    expect(abTestSplit(2, 5, 4)).toEqual({ variants: [1, 1, 0, 0], test: 2, rest: 0 });
    expect(abTestSplit(0, 20, 2)).toEqual({ variants: [0, 0], test: 0, rest: 0 });
  });

  it('gives everyone exactly one place: the variants and the rest add up, sizes differ by at most one, the share is kept', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.integer({ min: abTestLimits.minTestShare, max: abTestLimits.maxTestShare }),
        fc.integer({ min: abTestLimits.minVariants, max: abTestLimits.maxVariants }),
        (recipients, share, count) => {
          const split = abTestSplit(recipients, share, count);
          expect(split.variants).toHaveLength(count);
          expect(split.variants.reduce((a, b) => a + b, 0)).toBe(split.test);
          expect(split.test + split.rest).toBe(recipients);
          expect(Math.max(...split.variants) - Math.min(...split.variants)).toBeLessThanOrEqual(1);
          // Earlier variants never get fewer than later ones.
          expect([...split.variants].sort((a, b) => b - a)).toEqual(split.variants);
          if (recipients >= count) {
            expect(split.variants.every((size) => size >= 1)).toBe(true);
            // Rounded to the nearest person, unless every variant needed one more.
            const exact = (recipients * share) / 100;
            expect(Math.abs(split.test - exact) <= 0.5 || split.test === count).toBe(true);
          } else {
            expect(split.test).toBe(recipients);
          }
        },
      ),
    );
  });

  it('puts each rank in one variant or the rest, and each variant gets exactly its size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 5, max: 50 }),
        fc.integer({ min: 2, max: 4 }),
        (recipients, share, count) => {
          const split = abTestSplit(recipients, share, count);
          const got = Array.from({ length: count + 1 }, () => 0);
          for (let rank = 1; rank <= recipients; rank++) got[abTestVariantAt(rank, split.variants)]!++;
          expect(got.slice(1)).toEqual(split.variants);
          expect(got[0]).toBe(split.rest);
          // The test share is the first ranks, variant after variant.
          for (let rank = 2; rank <= split.test; rank++)
            expect(abTestVariantAt(rank, split.variants)).toBeGreaterThanOrEqual(
              abTestVariantAt(rank - 1, split.variants),
            );
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('AbTestInput', () => {
  const valid = {
    variants: [{ subject: 'One' }, { subject: 'Two' }],
    testShare: 20,
    metric: 'opens',
    waitHours: 4,
  };
  it('names variants A to D by position and drops the decision fields a client sends back', () => {
    const parsed = AbTestInput.parse({
      ...valid,
      variants: [{ subject: 'One' }, { name: 'Bold', emailId: 7 }, {}],
      decidesAt: null,
      winner: 1,
      decidedAt: 'x',
      explanation: 'y',
    });
    expect(parsed).toEqual({
      variants: [
        { name: 'A', subject: 'One', emailId: null },
        { name: 'Bold', subject: null, emailId: 7 },
        { name: 'C', subject: null, emailId: null },
      ],
      testShare: 20,
      metric: 'opens',
      waitHours: 4,
    });
  });

  it('refuses what a test cannot be, with a message that says why', () => {
    const message = (input: unknown) => {
      const result = AbTestInput.safeParse(input);
      return result.success ? null : result.error.issues[0]!.message;
    };
    expect(message({ ...valid, variants: [{ subject: 'One' }] })).toBe(abTestMessages.tooFewVariants);
    expect(message({ ...valid, variants: ['A', 'B', 'C', 'D', 'E'].map((subject) => ({ subject })) })).toBe(
      abTestMessages.tooManyVariants,
    );
    for (const testShare of [4, 51, 12.5, '20'])
      expect(message({ ...valid, testShare })).toBe(abTestMessages.testShare);
    for (const waitHours of [0, 73, 1.5])
      expect(message({ ...valid, waitHours })).toBe(abTestMessages.waitHours);
    expect(message({ ...valid, metric: 'replies' })).toBe(abTestMessages.metric);
    expect(message({ ...valid, variants: [{ subject: '  ' }, { subject: 'Two' }] })).toBe(
      abTestMessages.subjectEmpty,
    );
    expect(
      message({
        ...valid,
        variants: [
          { name: 'X', subject: 'One' },
          { name: 'x', subject: 'Two' },
        ],
      }),
    ).toBe(abTestMessages.duplicateNames);
    expect(message({ ...valid, variants: [{ subject: 'Same' }, { subject: ' Same ' }] })).toBe(
      abTestMessages.sameAsAnother('B'),
    );
    expect(message({ ...valid, variants: [{}, {}] })).toBe(abTestMessages.sameAsAnother('B'));
  });
});
