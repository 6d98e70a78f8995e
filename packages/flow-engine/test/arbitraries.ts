import type { OperationKey } from '@herald/contracts';
import fc from 'fast-check';
import type { EngineLink, EngineStep, FlowDefinition } from '../src/index.ts';

/** A step kind the generator may place after the trigger, with a configuration (sometimes a broken one). */
const stepKinds: Array<[OperationKey, fc.Arbitrary<Record<string, unknown>>]> = [
  [
    '/send',
    fc.oneof(
      { weight: 9, arbitrary: fc.integer({ min: 1, max: 9 }).map((id) => ({ email: { id } })) },
      { weight: 1, arbitrary: fc.constant({}) },
    ),
  ],
  ['/add-tag', fc.constantFrom({ tag: 'a' }, { tag: 'b' })],
  ['/lead-score', fc.integer({ min: -5, max: 5 }).map((change) => ({ change }))],
  ['/has-tag', fc.constant({ tag: 'vip' })],
  ['/in-segment', fc.constant({ segment: { id: 2 } })],
  [
    '/ab-test',
    fc.constant({
      variants: [
        { name: 'A', weight: 30 },
        { name: 'B', weight: 70 },
      ],
    }),
  ],
  [
    '/delay-v2',
    fc
      .oneof(
        fc.record({
          mode: fc.constant('duration'),
          amount: fc.integer({ min: 0, max: 3 }),
          unit: fc.constantFrom('minutes', 'hours', 'days'),
        }),
        fc.record({
          mode: fc.constant('until'),
          at: fc.integer({ min: 0, max: 10 }).map((d) => new Date(Date.UTC(2026, 2, 1 + d, 9)).toISOString()),
        }),
        fc.record({
          mode: fc.constant('weekday'),
          days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1 }),
          from: fc.constantFrom('08:00', '22:00'),
          to: fc.constantFrom('09:00', '06:00'),
        }),
      )
      .map((wait) => ({ wait })),
  ],
  ['/delay', fc.record({ amount: fc.integer({ min: 1, max: 2 }), unit: fc.constantFrom('hours', 'days') })],
  ['/end-flow', fc.constant({})],
];
const stepKind = fc
  .constantFrom(...stepKinds.keys())
  .chain((i) => stepKinds[i]![1].map((config) => ({ operationKey: stepKinds[i]![0], config })));
const branchesOf = (step: EngineStep): Array<string | null> =>
  step.operationKey === '/has-tag' || step.operationKey === '/in-segment'
    ? ['yes', 'no']
    : step.operationKey === '/ab-test'
      ? ['A', 'B']
      : [null];

/**
 * A random flow: a trigger (step 1) and up to 11 steps; each branch of each step links forward to a later step
 * (or nowhere), and a wait of at least a minute may link back to an earlier step (a loop through a wait).
 */
export const flows: fc.Arbitrary<FlowDefinition> = fc
  .array(stepKind, { minLength: 1, maxLength: 11 })
  .chain((kinds) => {
    const steps: EngineStep[] = [
      { id: 1, operationKey: '/event', config: { name: 'go' } },
      ...kinds.map((k, i) => ({ id: i + 2, ...k })),
    ];
    const choices = steps.flatMap((step) =>
      branchesOf(step).map((condition) => {
        const isPausing =
          step.operationKey === '/delay' ||
          (step.operationKey === '/delay-v2' &&
            (step.config.wait as { mode: string; amount?: number }).mode === 'duration' &&
            (step.config.wait as { amount: number }).amount > 0);
        const targets = steps.filter((s) => s.id > step.id || (isPausing && s.id > 1)).map((s) => s.id);
        return fc
          .option(fc.constantFrom(...(targets.length ? targets : [0])), { nil: null, freq: 4 })
          .map((target): EngineLink | null =>
            target && target !== step.id ? { source: step.id, target, condition } : null,
          );
      }),
    );
    return fc.tuple(...choices).map((links) => ({
      id: 1,
      version: 1,
      steps: new Map(steps.map((s) => [s.id, s])),
      links: links.filter((l): l is EngineLink => l !== null),
    }));
  });
