import { decodeInputFields, encodeInputFields, type FlowSnapshot } from '@herald/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDiff, diffVersions, isEmptyDiff, normalizeSnapshot } from '../src/index.ts';

const config = fc.oneof(
  fc.record({ tag: fc.constantFrom('trial', 'customer', 'vip') }),
  fc.record({
    wait: fc.record({
      mode: fc.constant('duration'),
      amount: fc.integer({ min: 0, max: 3 }),
      unit: fc.constantFrom('hours', 'days'),
    }),
  }),
  fc.record({ email: fc.record({ id: fc.integer({ min: 1, max: 4 }) }) }),
  fc.record({
    variants: fc.constantFrom(
      [
        { name: 'A', weight: 50 },
        { name: 'B', weight: 50 },
      ],
      [
        { name: 'A', weight: 20 },
        { name: 'B', weight: 80 },
      ],
    ),
  }),
);
const step = (id: number) =>
  fc.record({
    id: fc.constant(id),
    operationKey: fc.constantFrom('/add-tag', '/delay-v2', '/send', '/ab-test'),
    inputFields: config.map((c) => encodeInputFields(c)),
    coordinates: fc.record({ x: fc.integer({ min: 0, max: 500 }), y: fc.integer({ min: 0, max: 500 }) }),
  });

/** A snapshot over step ids 1..8 (each present or not), links between present steps, and a re-entry rule. */
const snapshots: fc.Arbitrary<FlowSnapshot> = fc
  .subarray([1, 2, 3, 4, 5, 6, 7, 8])
  .chain((ids) => fc.tuple(fc.tuple(...ids.map(step)), fc.constant(ids)))
  .chain(([steps, ids]) =>
    fc.record({
      steps: fc.constant(steps),
      links:
        ids.length < 2
          ? fc.constant([])
          : fc.uniqueArray(
              fc.record({
                source: fc.constantFrom(...ids),
                target: fc.constantFrom(...ids),
                condition: fc.constantFrom(null, 'A', 'yes'),
              }),
              { maxLength: 8, selector: (l) => `${l.source}-${l.target}-${l.condition}` },
            ),
      settings: fc.oneof(
        fc.constant({ reentry: 'once' as const, reentryDays: null }),
        fc.integer({ min: 1, max: 30 }).map((d) => ({ reentry: 'after-days' as const, reentryDays: d })),
      ),
    }),
  );

/** What a snapshot does, without canvas places and with settings decoded (the diff ignores layout). */
const behaviour = (s: FlowSnapshot) => {
  const n = normalizeSnapshot(s);
  return {
    steps: n.steps.map((x) => ({
      id: x.id,
      operationKey: x.operationKey,
      config: decodeInputFields(x.inputFields),
    })),
    links: n.links,
    settings: n.settings,
  };
};

describe('diffVersions', () => {
  it('finds nothing between a snapshot and itself', () => {
    fc.assert(fc.property(snapshots, (a) => isEmptyDiff(diffVersions(a, a))));
  });

  it('leads from one snapshot to the other when applied', () => {
    fc.assert(
      fc.property(snapshots, snapshots, (a, b) => {
        expect(behaviour(applyDiff(a, diffVersions(a, b)))).toEqual(behaviour(b));
      }),
    );
  });

  it('is empty exactly when the two snapshots do the same', () => {
    fc.assert(
      fc.property(
        snapshots,
        snapshots,
        (a, b) =>
          isEmptyDiff(diffVersions(a, b)) === (JSON.stringify(behaviour(a)) === JSON.stringify(behaviour(b))),
      ),
    );
  });

  it('swaps added and removed when read the other way', () => {
    fc.assert(
      fc.property(snapshots, snapshots, (a, b) => {
        const there = diffVersions(a, b);
        const back = diffVersions(b, a);
        expect(back.steps.added).toEqual(there.steps.removed);
        expect(back.steps.removed).toEqual(there.steps.added);
        expect(back.links.added).toEqual(there.links.removed);
        expect(back.steps.changed.map((c) => c.after.id)).toEqual(
          there.steps.changed.map((c) => c.before.id),
        );
        expect(back.settings.map((s) => [s.path, s.before, s.after])).toEqual(
          there.settings.map((s) => [s.path, s.after, s.before]),
        );
      }),
    );
  });

  it('names each changed setting with its value before and after, and ignores moves on the canvas', () => {
    const wait = (amount: number, x = 0) => ({
      id: 2,
      operationKey: '/delay-v2',
      inputFields: encodeInputFields({ wait: { mode: 'duration', amount, unit: 'days' } }),
      coordinates: { x, y: 0 },
    });
    const base: FlowSnapshot = {
      steps: [wait(1)],
      links: [],
      settings: { reentry: 'once', reentryDays: null },
    };
    expect(isEmptyDiff(diffVersions(base, { ...base, steps: [wait(1, 300)] }))).toBe(true);
    const diff = diffVersions(base, {
      steps: [wait(3)],
      links: [],
      settings: { reentry: 'after-days', reentryDays: 7 },
    });
    expect(diff.steps.changed[0]!.settings).toEqual([{ path: 'wait.amount', before: 1, after: 3 }]);
    expect(diff.settings).toEqual([
      { path: 'reentry', before: 'once', after: 'after-days' },
      { path: 'reentryDays', before: null, after: 7 },
    ]);
  });
});
