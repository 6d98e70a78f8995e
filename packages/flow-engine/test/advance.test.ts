import { flowMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { advance, type AdvanceInput } from '../src/index.ts';
import { describeScenarios, send, t0, tag, wait, type Scenario } from './advance-scenarios.ts';
import { at, flow, runAt } from './build.ts';

const utc: AdvanceInput = { timeZone: 'UTC' };

/** Scenarios of steps that act, branch and end; the waits are in advance-waits.test.ts. */
const scenarios: Scenario[] = [
  {
    name: 'trigger → send → tag runs straight through and ends',
    flow: flow(
      [
        [1, '/added-tag', tag('trial')],
        [2, '/send', send(5)],
        [3, '/add-tag', tag('welcomed')],
      ],
      [
        [1, 2],
        [2, 3],
      ],
    ),
    calls: [
      {
        now: t0,
        effects: ['executed:1', 'executed:2', 'send:2', 'executed:3', 'addTag:3'],
        run: { status: 'done', stepId: null, seq: 3 },
      },
    ],
  },
  {
    name: 'a filter asks for its answer, then takes the yes branch',
    flow: flow(
      [
        [1, '/entered-segment', { segment: { id: 3 } }],
        [2, '/has-tag', tag('vip')],
        [3, '/add-tag', tag('yes')],
        [4, '/add-tag', tag('no')],
      ],
      [
        [1, 2],
        [2, 3, 'yes'],
        [2, 4, 'no'],
      ],
    ),
    calls: [
      { now: t0, effects: ['executed:1'], run: { status: 'active', stepId: 2, seq: 1 }, needs: 2 },
      { now: t0, effects: [], run: { status: 'active', stepId: 2, seq: 1 }, needs: 2 },
      {
        now: t0,
        facts: { 2: true },
        effects: ['executed:2', 'executed:3', 'addTag:3'],
        run: { status: 'done', seq: 3 },
      },
    ],
  },
  {
    name: 'a filter answered no takes the no branch; a branch without a link ends the run',
    flow: flow(
      [
        [1, '/entered-segment', { segment: { id: 3 } }],
        [2, '/in-segment', { segment: { id: 4 } }],
        [3, '/add-tag', tag('yes')],
      ],
      [
        [1, 2],
        [2, 3, 'yes'],
      ],
    ),
    calls: [
      {
        now: t0,
        facts: { 2: false },
        effects: ['executed:1', 'executed:2'],
        run: { status: 'done', stepId: null, seq: 2 },
      },
    ],
  },
  {
    name: 'an A/B variant without a link ends the run',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [
          2,
          '/ab-test',
          {
            variants: [
              { name: 'A', weight: 1 },
              { name: 'B', weight: 1 },
            ],
          },
        ],
      ],
      [[1, 2]],
    ),
    calls: [
      { now: t0, effects: ['executed:1', 'executed:2'], run: { status: 'done', stepId: null, seq: 2 } },
    ],
  },
  {
    name: 'end flow ends the run even with a link after it',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [2, '/end-flow'],
        [3, '/add-tag', tag('never')],
      ],
      [
        [1, 2],
        [2, 3],
      ],
    ),
    calls: [
      { now: t0, effects: ['executed:1', 'executed:2'], run: { status: 'done', stepId: null, seq: 2 } },
    ],
  },
  {
    name: 'a send step without an email fails the run at that step',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [2, '/send', {}],
      ],
      [[1, 2]],
    ),
    calls: [
      {
        now: t0,
        effects: ['executed:1'],
        run: { status: 'failed', stepId: 2, seq: 1, lastError: flowMessages.noEmail },
      },
    ],
  },
  {
    name: 'a run waiting at a step that was removed exits',
    flow: flow([[1, '/event', { name: 'x' }]], []),
    start: runAt(9, { status: 'waiting', wakeAt: '2026-03-01T00:00:00Z', seq: 4 }),
    calls: [
      {
        now: t0,
        effects: [],
        run: { status: 'exited', stepId: null, seq: 4, lastError: flowMessages.stepRemoved },
      },
    ],
  },
  {
    name: 'notification, webhook and change field state their effects',
    flow: flow(
      [
        [1, '/webhook-trigger'],
        [2, '/email-notification', { to: ['team@example.com'], subject: 'New lead', body: 'Hi' }],
        [3, '/send-webhook', { url: 'https://example.com/hook' }],
        [4, '/change-field', { field: 'plan', value: 'pro' }],
        [5, '/remove-tag', tag('trial')],
      ],
      [
        [1, 2],
        [2, 3],
        [3, 4],
        [4, 5],
      ],
    ),
    calls: [
      {
        now: t0,
        effects: [
          'executed:1',
          'executed:2',
          'notify:2',
          'executed:3',
          'webhook:3',
          'executed:4',
          'changeField:4',
          'executed:5',
          'removeTag:5',
        ],
        run: { status: 'done', seq: 5 },
      },
    ],
  },
];

describeScenarios(scenarios);

describe('advance rules', () => {
  const linear = flow(
    [
      [1, '/event', { name: 'x' }],
      [2, '/send', send(5)],
      [3, '/delay-v2', wait(1)],
      [4, '/send', send(6)],
    ],
    [
      [1, 2],
      [2, 3],
      [3, 4],
    ],
  );

  it('keys every effect with the run id and the seq of its step', () => {
    const { effects } = advance(linear, runAt(1, { seq: 10 }), utc, t0);
    expect(effects.map((e) => e.key)).toEqual(['7:11', '7:12', '7:12', '7:13']);
    expect(effects[2]).toEqual({ kind: 'send', emailId: 5, key: '7:12', stepId: 2 });
  });

  it('leaves a finished run as it is', () => {
    for (const status of ['done', 'exited', 'failed'] as const) {
      const run = runAt(2, { status });
      expect(advance(linear, run, utc, t0)).toEqual({ run, effects: [], needs: null });
    }
  });

  it('wakes a run exactly at its wake time, not a millisecond before', () => {
    const run = runAt(4, { status: 'waiting', wakeAt: '2026-03-03T10:00:00.000Z', seq: 3 });
    expect(advance(linear, run, utc, at('2026-03-03T09:59:59.999Z')).run).toBe(run);
    expect(advance(linear, run, utc, at('2026-03-03T10:00:00.000Z')).run).toMatchObject({
      status: 'done',
      seq: 4,
      wakeAt: null,
    });
  });

  it('counts days in the person’s time zone: one day across the spring change is 23 hours', () => {
    const run = advance(linear, runAt(1), { timeZone: 'Europe/Berlin' }, at('2026-03-28T09:00:00Z')).run; // 10:00 in Berlin
    expect(run.wakeAt).toBe('2026-03-29T08:00:00.000Z'); // 10:00 CEST
  });

  it('falls back to UTC for an unknown time zone', () => {
    const run = advance(linear, runAt(1), { timeZone: 'Mars/Olympus' }, t0).run;
    expect(run.wakeAt).toBe('2026-03-03T10:00:00.000Z');
  });

  it('splits an A/B test by weight, the same way every time for a run', () => {
    const ab = flow(
      [
        [1, '/event', { name: 'x' }],
        [
          2,
          '/ab-test',
          {
            variants: [
              { name: 'A', weight: 75 },
              { name: 'B', weight: 25 },
            ],
          },
        ],
        [3, '/add-tag', tag('a')],
        [4, '/add-tag', tag('b')],
      ],
      [
        [1, 2],
        [2, 3, 'A'],
        [2, 4, 'B'],
      ],
    );
    const counts = { a: 0, b: 0 };
    for (let id = 1; id <= 2000; id += 1) {
      const first = advance(ab, runAt(1, { id }), utc, t0).effects;
      expect(advance(ab, runAt(1, { id }), utc, t0).effects).toEqual(first);
      const added = first.find((e) => e.kind === 'addTag');
      if (added?.kind === 'addTag') counts[added.tag as 'a' | 'b'] += 1;
    }
    expect(counts.a + counts.b).toBe(2000);
    expect(counts.a / 2000).toBeGreaterThan(0.72);
    expect(counts.a / 2000).toBeLessThan(0.78);
  });

  it('does not check a trigger’s configuration again for a run that entered', () => {
    const edited = flow(
      [
        [1, '/time', {}],
        [2, '/add-tag', tag('x')],
      ],
      [[1, 2]],
    );
    expect(advance(edited, runAt(1), utc, t0).run).toMatchObject({ status: 'done', seq: 2 });
  });
});
