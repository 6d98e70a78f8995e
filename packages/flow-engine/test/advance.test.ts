import { flowMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { advance, type AdvanceInput, type FlowDefinition, type FlowRun } from '../src/index.ts';
import { at, flow, runAt } from './build.ts';

const utc: AdvanceInput = { timeZone: 'UTC' };
const t0 = at('2026-03-02T10:00:00Z'); // a Monday

/** A step of a scenario: call advance at `now` with `facts`, and expect the effects (kind:stepId) and the run. */
type Call = { now: Date; facts?: Record<number, boolean>; effects: string[]; run: Partial<FlowRun>; needs?: number };

function play(definition: FlowDefinition, start: FlowRun, calls: Call[], timeZone = 'UTC'): void {
  let run = start;
  for (const [i, call] of calls.entries()) {
    const result = advance(definition, run, { timeZone, facts: call.facts }, call.now);
    expect(result.effects.map((e) => `${e.kind}:${e.stepId}`), `call ${i}`).toEqual(call.effects);
    expect(result.run, `call ${i}`).toMatchObject(call.run);
    expect(result.needs?.stepId ?? null, `call ${i}`).toBe(call.needs ?? null);
    run = result.run;
  }
}

const tag = (name: string) => ({ tag: name });
const send = (id: number) => ({ email: { id } });
const wait = (amount: number, unit = 'days') => ({ wait: { mode: 'duration', amount, unit } });

const scenarios: Array<{ name: string; flow: FlowDefinition; start?: FlowRun; timeZone?: string; calls: Call[] }> = [
  {
    name: 'trigger → send → tag runs straight through and ends',
    flow: flow([[1, '/added-tag', tag('trial')], [2, '/send', send(5)], [3, '/add-tag', tag('welcomed')]], [[1, 2], [2, 3]]),
    calls: [{ now: t0, effects: ['executed:1', 'executed:2', 'send:2', 'executed:3', 'addTag:3'], run: { status: 'done', stepId: null, seq: 3 } }],
  },
  {
    name: 'a two-day wait sleeps, ignores an early wake-up, then goes on',
    flow: flow([[1, '/event', { name: 'signed_up' }], [2, '/delay-v2', wait(2)], [3, '/send', send(5)]], [[1, 2], [2, 3]]),
    calls: [
      { now: t0, effects: ['executed:1', 'executed:2'], run: { status: 'waiting', stepId: 3, seq: 2, wakeAt: '2026-03-04T10:00:00.000Z' } },
      { now: at('2026-03-03T10:00:00Z'), effects: [], run: { status: 'waiting', stepId: 3, seq: 2 } },
      { now: at('2026-03-04T10:00:05Z'), effects: ['executed:3', 'send:3'], run: { status: 'done', stepId: null, seq: 3, wakeAt: null } },
    ],
  },
  {
    name: 'a zero wait goes on at once',
    flow: flow([[1, '/event', { name: 'x' }], [2, '/delay', { amount: 0, unit: 'hours' }], [3, '/lead-score', { change: 5 }]], [[1, 2], [2, 3]]),
    calls: [{ now: t0, effects: ['executed:1', 'executed:2', 'executed:3', 'leadScore:3'], run: { status: 'done', seq: 3 } }],
  },
  {
    name: 'a wait until a past date goes on at once; a future one sleeps until it',
    flow: flow(
      [[1, '/event', { name: 'x' }], [2, '/delay-v2', { wait: { mode: 'until', at: '2026-01-01T00:00:00Z' } }], [3, '/delay-v2', { wait: { mode: 'until', at: '2026-03-05T08:00:00+01:00' } }], [4, '/archive-person']],
      [[1, 2], [2, 3], [3, 4]],
    ),
    calls: [
      { now: t0, effects: ['executed:1', 'executed:2', 'executed:3'], run: { status: 'waiting', stepId: 4, wakeAt: '2026-03-05T07:00:00.000Z' } },
      { now: at('2026-03-05T07:00:00Z'), effects: ['executed:4', 'archivePerson:4'], run: { status: 'done', seq: 4 } },
    ],
  },
  {
    name: 'a filter asks for its answer, then takes the yes branch',
    flow: flow([[1, '/entered-segment', { segment: { id: 3 } }], [2, '/has-tag', tag('vip')], [3, '/add-tag', tag('yes')], [4, '/add-tag', tag('no')]], [[1, 2], [2, 3, 'yes'], [2, 4, 'no']]),
    calls: [
      { now: t0, effects: ['executed:1'], run: { status: 'active', stepId: 2, seq: 1 }, needs: 2 },
      { now: t0, effects: [], run: { status: 'active', stepId: 2, seq: 1 }, needs: 2 },
      { now: t0, facts: { 2: true }, effects: ['executed:2', 'executed:3', 'addTag:3'], run: { status: 'done', seq: 3 } },
    ],
  },
  {
    name: 'a filter answered no takes the no branch; a branch without a link ends the run',
    flow: flow([[1, '/entered-segment', { segment: { id: 3 } }], [2, '/in-segment', { segment: { id: 4 } }], [3, '/add-tag', tag('yes')]], [[1, 2], [2, 3, 'yes']]),
    calls: [{ now: t0, facts: { 2: false }, effects: ['executed:1', 'executed:2'], run: { status: 'done', stepId: null, seq: 2 } }],
  },
  {
    name: 'a run woken from a wait stops at a filter, then goes on with its answer',
    flow: flow([[1, '/event', { name: 'x' }], [2, '/delay', { amount: 1, unit: 'hours' }], [3, '/has-tag', tag('vip')], [4, '/send', send(5)], [5, '/send', send(6)]], [[1, 2], [2, 3], [3, 4, 'yes'], [3, 5, 'no']]),
    calls: [
      { now: t0, effects: ['executed:1', 'executed:2'], run: { status: 'waiting', stepId: 3, wakeAt: '2026-03-02T11:00:00.000Z' } },
      { now: at('2026-03-02T11:00:00Z'), effects: [], run: { status: 'active', stepId: 3, seq: 2, wakeAt: null }, needs: 3 },
      { now: at('2026-03-02T11:00:01Z'), facts: { 3: false }, effects: ['executed:3', 'executed:5', 'send:5'], run: { status: 'done', seq: 4 } },
    ],
  },
  {
    name: 'an A/B variant without a link ends the run',
    flow: flow([[1, '/event', { name: 'x' }], [2, '/ab-test', { variants: [{ name: 'A', weight: 1 }, { name: 'B', weight: 1 }] }]], [[1, 2]]),
    calls: [{ now: t0, effects: ['executed:1', 'executed:2'], run: { status: 'done', stepId: null, seq: 2 } }],
  },
  {
    name: 'a weekday wait in the person’s zone: Monday 10:00 UTC is 11:00 in Berlin, so “Tuesday 9–17” waits for Tuesday 08:00 UTC',
    timeZone: 'Europe/Berlin',
    flow: flow([[1, '/event', { name: 'x' }], [2, '/delay-v2', { wait: { mode: 'weekday', days: [2], from: '09:00', to: '17:00' } }], [3, '/send', send(5)]], [[1, 2], [2, 3]]),
    calls: [
      { now: t0, effects: ['executed:1', 'executed:2'], run: { status: 'waiting', stepId: 3, wakeAt: '2026-03-03T08:00:00.000Z' } },
      { now: at('2026-03-03T08:00:00Z'), effects: ['executed:3', 'send:3'], run: { status: 'done', seq: 3 } },
    ],
  },
  {
    name: 'end flow ends the run even with a link after it',
    flow: flow([[1, '/event', { name: 'x' }], [2, '/end-flow'], [3, '/add-tag', tag('never')]], [[1, 2], [2, 3]]),
    calls: [{ now: t0, effects: ['executed:1', 'executed:2'], run: { status: 'done', stepId: null, seq: 2 } }],
  },
  {
    name: 'a send step without an email fails the run at that step',
    flow: flow([[1, '/event', { name: 'x' }], [2, '/send', {}]], [[1, 2]]),
    calls: [{ now: t0, effects: ['executed:1'], run: { status: 'failed', stepId: 2, seq: 1, lastError: flowMessages.noEmail } }],
  },
  {
    name: 'a wait without a time fails with the date message',
    flow: flow([[1, '/event', { name: 'x' }], [2, '/delay-v2', { wait: { mode: 'until' } }]], [[1, 2]]),
    calls: [{ now: t0, effects: ['executed:1'], run: { status: 'failed', stepId: 2, lastError: flowMessages.noDateTime } }],
  },
  {
    name: 'a wait longer than five years fails',
    flow: flow([[1, '/event', { name: 'x' }], [2, '/delay-v2', wait(100 * 52, 'weeks')], [3, '/end-flow']], [[1, 2], [2, 3]]),
    calls: [{ now: t0, effects: ['executed:1'], run: { status: 'failed', stepId: 2, lastError: flowMessages.waitTooLong } }],
  },
  {
    name: 'a run waiting at a step that was removed exits',
    flow: flow([[1, '/event', { name: 'x' }]], []),
    start: runAt(9, { status: 'waiting', wakeAt: '2026-03-01T00:00:00Z', seq: 4 }),
    calls: [{ now: t0, effects: [], run: { status: 'exited', stepId: null, seq: 4, lastError: flowMessages.stepRemoved } }],
  },
  {
    name: 'a wait as the last step ends the run at once',
    flow: flow([[1, '/event', { name: 'x' }], [2, '/delay-v2', wait(3)]], [[1, 2]]),
    calls: [{ now: t0, effects: ['executed:1', 'executed:2'], run: { status: 'done', stepId: null, seq: 2, wakeAt: null } }],
  },
  {
    name: 'a loop through a zero wait is stopped',
    flow: flow([[1, '/event', { name: 'x' }], [2, '/delay', { amount: 0, unit: 'minutes' }], [3, '/lead-score', { change: 1 }]], [[1, 2], [2, 3], [3, 2]]),
    calls: [{ now: t0, effects: expect.any(Array) as unknown as string[], run: { status: 'failed', stepId: expect.any(Number) as unknown as number, lastError: flowMessages.loopWithoutWait } }],
  },
  {
    name: 'notification, webhook and change field state their effects',
    flow: flow(
      [[1, '/webhook-trigger'], [2, '/email-notification', { to: ['team@example.com'], subject: 'New lead', body: 'Hi' }], [3, '/send-webhook', { url: 'https://example.com/hook' }], [4, '/change-field', { field: 'plan', value: 'pro' }], [5, '/remove-tag', tag('trial')]],
      [[1, 2], [2, 3], [3, 4], [4, 5]],
    ),
    calls: [{ now: t0, effects: ['executed:1', 'executed:2', 'notify:2', 'executed:3', 'webhook:3', 'executed:4', 'changeField:4', 'executed:5', 'removeTag:5'], run: { status: 'done', seq: 5 } }],
  },
];

describe('advance scenarios', () => {
  for (const scenario of scenarios) it(scenario.name, () => play(scenario.flow, scenario.start ?? runAt(1), scenario.calls, scenario.timeZone));
});

describe('advance rules', () => {
  const linear = flow([[1, '/event', { name: 'x' }], [2, '/send', send(5)], [3, '/delay-v2', wait(1)], [4, '/send', send(6)]], [[1, 2], [2, 3], [3, 4]]);

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
    expect(advance(linear, run, utc, at('2026-03-03T10:00:00.000Z')).run).toMatchObject({ status: 'done', seq: 4, wakeAt: null });
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
      [[1, '/event', { name: 'x' }], [2, '/ab-test', { variants: [{ name: 'A', weight: 75 }, { name: 'B', weight: 25 }] }], [3, '/add-tag', tag('a')], [4, '/add-tag', tag('b')]],
      [[1, 2], [2, 3, 'A'], [2, 4, 'B']],
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
    const edited = flow([[1, '/time', {}], [2, '/add-tag', tag('x')]], [[1, 2]]);
    expect(advance(edited, runAt(1), utc, t0).run).toMatchObject({ status: 'done', seq: 2 });
  });
});
