import { flowMessages } from '@herald/contracts';
import { expect } from 'vitest';
import { describeScenarios, send, t0, tag, wait, type Scenario } from './advance-scenarios.ts';
import { at, flow } from './build.ts';

/** Scenarios of runs that wait: durations, dates, weekdays, the waits refused, and a loop through a zero wait. */
const scenarios: Scenario[] = [
  {
    name: 'a two-day wait sleeps, ignores an early wake-up, then goes on',
    flow: flow(
      [
        [1, '/event', { name: 'signed_up' }],
        [2, '/delay-v2', wait(2)],
        [3, '/send', send(5)],
      ],
      [
        [1, 2],
        [2, 3],
      ],
    ),
    calls: [
      {
        now: t0,
        effects: ['executed:1', 'executed:2'],
        run: { status: 'waiting', stepId: 3, seq: 2, wakeAt: '2026-03-04T10:00:00.000Z' },
      },
      { now: at('2026-03-03T10:00:00Z'), effects: [], run: { status: 'waiting', stepId: 3, seq: 2 } },
      {
        now: at('2026-03-04T10:00:05Z'),
        effects: ['executed:3', 'send:3'],
        run: { status: 'done', stepId: null, seq: 3, wakeAt: null },
      },
    ],
  },
  {
    name: 'a zero wait goes on at once',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [2, '/delay', { amount: 0, unit: 'hours' }],
        [3, '/lead-score', { change: 5 }],
      ],
      [
        [1, 2],
        [2, 3],
      ],
    ),
    calls: [
      {
        now: t0,
        effects: ['executed:1', 'executed:2', 'executed:3', 'leadScore:3'],
        run: { status: 'done', seq: 3 },
      },
    ],
  },
  {
    name: 'a wait until a past date goes on at once; a future one sleeps until it',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [2, '/delay-v2', { wait: { mode: 'until', at: '2026-01-01T00:00:00Z' } }],
        [3, '/delay-v2', { wait: { mode: 'until', at: '2026-03-05T08:00:00+01:00' } }],
        [4, '/archive-person'],
      ],
      [
        [1, 2],
        [2, 3],
        [3, 4],
      ],
    ),
    calls: [
      {
        now: t0,
        effects: ['executed:1', 'executed:2', 'executed:3'],
        run: { status: 'waiting', stepId: 4, wakeAt: '2026-03-05T07:00:00.000Z' },
      },
      {
        now: at('2026-03-05T07:00:00Z'),
        effects: ['executed:4', 'archivePerson:4'],
        run: { status: 'done', seq: 4 },
      },
    ],
  },
  {
    name: 'a run woken from a wait stops at a filter, then goes on with its answer',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [2, '/delay', { amount: 1, unit: 'hours' }],
        [3, '/has-tag', tag('vip')],
        [4, '/send', send(5)],
        [5, '/send', send(6)],
      ],
      [
        [1, 2],
        [2, 3],
        [3, 4, 'yes'],
        [3, 5, 'no'],
      ],
    ),
    calls: [
      {
        now: t0,
        effects: ['executed:1', 'executed:2'],
        run: { status: 'waiting', stepId: 3, wakeAt: '2026-03-02T11:00:00.000Z' },
      },
      {
        now: at('2026-03-02T11:00:00Z'),
        effects: [],
        run: { status: 'active', stepId: 3, seq: 2, wakeAt: null },
        needs: 3,
      },
      {
        now: at('2026-03-02T11:00:01Z'),
        facts: { 3: false },
        effects: ['executed:3', 'executed:5', 'send:5'],
        run: { status: 'done', seq: 4 },
      },
    ],
  },
  {
    name: 'a weekday wait in the person’s zone: Monday 10:00 UTC is 11:00 in Berlin, so “Tuesday 9–17” waits for Tuesday 08:00 UTC',
    timeZone: 'Europe/Berlin',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [2, '/delay-v2', { wait: { mode: 'weekday', days: [2], from: '09:00', to: '17:00' } }],
        [3, '/send', send(5)],
      ],
      [
        [1, 2],
        [2, 3],
      ],
    ),
    calls: [
      {
        now: t0,
        effects: ['executed:1', 'executed:2'],
        run: { status: 'waiting', stepId: 3, wakeAt: '2026-03-03T08:00:00.000Z' },
      },
      { now: at('2026-03-03T08:00:00Z'), effects: ['executed:3', 'send:3'], run: { status: 'done', seq: 3 } },
    ],
  },
  {
    name: 'a wait without a time fails with the date message',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [2, '/delay-v2', { wait: { mode: 'until' } }],
      ],
      [[1, 2]],
    ),
    calls: [
      {
        now: t0,
        effects: ['executed:1'],
        run: { status: 'failed', stepId: 2, lastError: flowMessages.noDateTime },
      },
    ],
  },
  {
    name: 'a wait longer than five years fails',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [2, '/delay-v2', wait(100 * 52, 'weeks')],
        [3, '/end-flow'],
      ],
      [
        [1, 2],
        [2, 3],
      ],
    ),
    calls: [
      {
        now: t0,
        effects: ['executed:1'],
        run: { status: 'failed', stepId: 2, lastError: flowMessages.waitTooLong },
      },
    ],
  },
  {
    name: 'a wait as the last step ends the run at once',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [2, '/delay-v2', wait(3)],
      ],
      [[1, 2]],
    ),
    calls: [
      {
        now: t0,
        effects: ['executed:1', 'executed:2'],
        run: { status: 'done', stepId: null, seq: 2, wakeAt: null },
      },
    ],
  },
  {
    name: 'a loop through a zero wait is stopped',
    flow: flow(
      [
        [1, '/event', { name: 'x' }],
        [2, '/delay', { amount: 0, unit: 'minutes' }],
        [3, '/lead-score', { change: 1 }],
      ],
      [
        [1, 2],
        [2, 3],
        [3, 2],
      ],
    ),
    calls: [
      {
        now: t0,
        effects: expect.any(Array) as unknown as string[],
        run: {
          status: 'failed',
          stepId: expect.any(Number) as unknown as number,
          lastError: flowMessages.loopWithoutWait,
        },
      },
    ],
  },
];

describeScenarios(scenarios);
