import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  advance,
  type AdvanceInput,
  type AdvanceResult,
  type FlowDefinition,
  type FlowRun,
} from '../src/index.ts';
import { flows } from './arbitraries.ts';

/** What happens between two calls of advance. */
type Event =
  | { kind: 'tick'; minutes: number }
  | { kind: 'wake' }
  | { kind: 'answer'; yes: boolean }
  | { kind: 'remove'; index: number };
const events = fc.array(
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.integer({ min: 0, max: 3 * 1440 }).map((minutes): Event => ({ kind: 'tick', minutes })),
    },
    { weight: 4, arbitrary: fc.constant<Event>({ kind: 'wake' }) },
    { weight: 4, arbitrary: fc.boolean().map((yes): Event => ({ kind: 'answer', yes })) },
    { weight: 1, arbitrary: fc.nat().map((index): Event => ({ kind: 'remove', index })) },
  ),
  { maxLength: 25 },
);

/**
 * A run is in a valid state after a call. A run asleep at a step removed meanwhile is left alone until it is due
 * (advance then exits it), and a failed run keeps the step it failed at even when that step is removed later, so
 * `moved` says whether this call changed the run.
 */
function expectValidState(flow: FlowDefinition, result: AdvanceResult, now: Date, moved: boolean): void {
  const { run, needs } = result;
  const exists = run.stepId !== null && flow.steps.has(run.stepId);
  switch (run.status) {
    case 'waiting':
      if (moved) expect(exists).toBe(true);
      expect(Date.parse(run.wakeAt!)).toBeGreaterThan(now.getTime());
      break;
    case 'active':
      expect(exists && needs?.stepId === run.stepId).toBe(true);
      break;
    case 'done':
    case 'exited':
      expect(run.stepId).toBeNull();
      break;
    case 'failed':
      expect(run.lastError).not.toBeNull();
      if (moved) expect(exists).toBe(true);
      break;
  }
  if (run.status !== 'active') expect(needs).toBeNull();
  if (run.status !== 'waiting') expect(run.wakeAt).toBeNull();
}

describe('advance properties', () => {
  it('never executes a step twice in a pass, never reuses a key, never loses a run, and repeats as a no-op', () => {
    fc.assert(
      fc.property(
        flows,
        events,
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York'),
        fc.integer({ min: 1, max: 1e6 }),
        (startFlow, script, timeZone, runId) => {
          let flow = startFlow;
          let now = new Date('2026-03-02T07:00:00Z');
          let run: FlowRun = {
            id: runId,
            flowId: 1,
            personId: 1,
            stepId: 1,
            status: 'active',
            wakeAt: null,
            seq: 0,
            lastError: null,
          };
          let facts: Record<number, boolean> = {};
          const keys = new Set<string>();
          const call = () => {
            const input: AdvanceInput = { timeZone, facts };
            const result = advance(flow, run, input, now);
            const executed = result.effects.filter((e) => e.kind === 'executed');
            // One executed effect per seq, numbered on from the run's seq, each step at most once in this pass.
            expect(executed.map((e) => e.key)).toEqual(executed.map((_, i) => `${runId}:${run.seq + i + 1}`));
            expect(new Set(executed.map((e) => e.stepId)).size).toBe(executed.length);
            expect(result.run.seq).toBe(run.seq + executed.length);
            for (const effect of result.effects) {
              const id = `${effect.kind}@${effect.key}`;
              expect(keys.has(id)).toBe(false);
              keys.add(id);
              expect(executed.some((e) => e.key === effect.key && e.stepId === effect.stepId)).toBe(true);
            }
            expectValidState(flow, result, now, result.run !== run);
            // The same call again changes nothing.
            const again = advance(flow, result.run, input, now);
            expect(again.effects).toEqual([]);
            expect(again.run).toEqual(result.run);
            run = result.run;
            facts = {};
            return result;
          };
          let last = call();
          for (const event of script) {
            if (event.kind === 'tick') now = new Date(now.getTime() + event.minutes * 60_000);
            if (event.kind === 'wake' && run.wakeAt)
              now = new Date(Math.max(now.getTime(), Date.parse(run.wakeAt)));
            if (event.kind === 'answer' && last.needs) facts = { [last.needs.stepId]: event.yes };
            if (event.kind === 'remove') {
              const ids = [...flow.steps.keys()].filter((id) => id !== 1);
              if (ids.length === 0) continue;
              const gone = ids[event.index % ids.length]!;
              flow = {
                ...flow,
                steps: new Map([...flow.steps].filter(([id]) => id !== gone)),
                links: flow.links.filter((l) => l.source !== gone && l.target !== gone),
              };
            }
            last = call();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a run woken at its wake time with answers to every filter always ends or waits again, never stalls', () => {
    fc.assert(
      fc.property(flows, fc.integer({ min: 1, max: 1e6 }), fc.boolean(), (flow, runId, answer) => {
        let now = new Date('2026-03-02T07:00:00Z');
        let run: FlowRun = {
          id: runId,
          flowId: 1,
          personId: 1,
          stepId: 1,
          status: 'active',
          wakeAt: null,
          seq: 0,
          lastError: null,
        };
        for (let i = 0; i < 60 && (run.status === 'active' || run.status === 'waiting'); i += 1) {
          if (run.wakeAt) now = new Date(Date.parse(run.wakeAt));
          const facts = Object.fromEntries([...flow.steps.keys()].map((id) => [id, answer]));
          const result = advance(flow, run, { timeZone: 'Europe/Berlin', facts }, now);
          expect(result.needs).toBeNull();
          expect(result.run.seq > run.seq || result.run.status !== run.status).toBe(true);
          run = result.run;
        }
        expect(['done', 'failed', 'waiting']).toContain(run.status);
      }),
      { numRuns: 300 },
    );
  });
});
