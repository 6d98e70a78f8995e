import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { simulateRun, type Effect, type FlowDefinition, type SimulationHooks } from '../src/index.ts';
import { flows } from './arbitraries.ts';
import { flow } from './build.ts';

const start = new Date('2026-03-02T08:00:00Z');
const day = 86_400_000;

/** Hooks answering filters from a list of answers, applying nothing, and reaching the goal at a chosen call. */
function hooks(answers: boolean[], goalAt: number | null = null): SimulationHooks & { applied: Effect[] } {
  let asked = 0;
  let checked = 0;
  const applied: Effect[] = [];
  return {
    applied,
    answer: () => Promise.resolve(answers[asked++ % Math.max(answers.length, 1)] ?? false),
    apply: (effects) => {
      applied.push(...effects);
      return Promise.resolve();
    },
    ...(goalAt === null ? {} : { reached: () => Promise.resolve(checked++ === goalAt) }),
  };
}

describe('simulateRun (properties)', () => {
  it('never executes a (run, seq) twice, keeps seq consecutive, and stops within the horizon or the step cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        flows,
        fc.array(fc.boolean(), { maxLength: 8 }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 1, max: 120 }),
        fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
        async (definition: FlowDefinition, answers, days, maxSteps, goalAt) => {
          const until = new Date(start.getTime() + days * day);
          const h = hooks(answers, goalAt);
          const out = await simulateRun(
            definition,
            { startStepId: 1, start, until, timeZone: 'Europe/Paris', maxSteps },
            h,
          );
          const seqs = out.steps.map((s) => s.seq);
          expect(seqs).toEqual(seqs.map((_, i) => i + 1));
          expect(new Set(h.applied.filter((e) => e.kind === 'executed').map((e) => e.key)).size).toBe(
            out.steps.length,
          );
          expect(out.steps.length).toBeLessThanOrEqual(maxSteps);
          for (const s of out.steps) expect(s.at.getTime()).toBeLessThanOrEqual(until.getTime());
          for (let i = 1; i < out.steps.length; i++)
            expect(out.steps[i]!.at.getTime()).toBeGreaterThanOrEqual(out.steps[i - 1]!.at.getTime());
          if (out.ended === 'horizon') expect(out.wakeAt!.getTime()).toBeGreaterThan(until.getTime());
          if (out.ended === 'converted') expect(out.convertedAt).not.toBeNull();
          if (out.ended === 'done' || out.ended === 'exited') expect(out.run.stepId).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a loop through a one-minute wait over a year stops at the step cap', async () => {
    const looping = flow(
      [
        [1, '/event', { name: 'go' }],
        [2, '/add-tag', { tag: 'a' }],
        [3, '/delay-v2', { wait: { mode: 'duration', amount: 1, unit: 'minutes' } }],
      ],
      [
        [1, 2],
        [2, 3],
        [3, 2],
      ],
    );
    const out = await simulateRun(
      looping,
      { startStepId: 1, start, until: new Date(start.getTime() + 365 * day), timeZone: 'UTC', maxSteps: 500 },
      hooks([]),
    );
    expect(out.ended).toBe('stepLimit');
    expect(out.steps.length).toBeLessThanOrEqual(500);
  });

  it('reports branches, wake times and the goal reached while waiting', async () => {
    const definition = flow(
      [
        [1, '/event', { name: 'go' }],
        [2, '/has-tag', { tag: 'vip' }],
        [3, '/delay-v2', { wait: { mode: 'duration', amount: 2, unit: 'days' } }],
        [4, '/add-tag', { tag: 'x' }],
      ],
      [
        [1, 2],
        [2, 3, 'yes'],
        [3, 4],
      ],
    );
    const out = await simulateRun(
      definition,
      { startStepId: 1, start, until: new Date(start.getTime() + 10 * day), timeZone: 'UTC', maxSteps: 50 },
      hooks([true]),
    );
    expect(out.ended).toBe('done');
    expect(out.steps.map((s) => [s.stepId, s.branch ?? null])).toEqual([
      [1, null],
      [2, 'yes'],
      [3, null],
      [4, null],
    ]);
    expect(out.steps[2]!.wakeAt!.toISOString()).toBe('2026-03-04T08:00:00.000Z');
    expect(out.steps[3]!.at.toISOString()).toBe('2026-03-04T08:00:00.000Z');

    const moment = new Date(start.getTime() + day);
    const reachedOnce: SimulationHooks = {
      ...hooks([true]),
      reached: (at) => Promise.resolve(at.getTime() === moment.getTime()),
    };
    const converted = await simulateRun(
      definition,
      {
        startStepId: 1,
        start,
        until: new Date(start.getTime() + 10 * day),
        timeZone: 'UTC',
        maxSteps: 50,
        moments: [moment],
      },
      reachedOnce,
    );
    expect(converted.ended).toBe('converted');
    expect(converted.convertedAt).toEqual(moment);
    expect(converted.steps.map((s) => s.stepId)).toEqual([1, 2, 3]);
  });
});
