import { describe, expect, it } from 'vitest';
import { advance, type FlowDefinition, type FlowRun } from '../src/index.ts';
import { at, runAt } from './build.ts';

/** What the advance scenario tables share: the clock they start at, the step configs, and the player. */
export const t0 = at('2026-03-02T10:00:00Z'); // a Monday

/** A step of a scenario: call advance at `now` with `facts`, and expect the effects (kind:stepId) and the run. */
export type Call = {
  now: Date;
  facts?: Record<number, boolean>;
  effects: string[];
  run: Partial<FlowRun>;
  needs?: number;
};

export type Scenario = {
  name: string;
  flow: FlowDefinition;
  start?: FlowRun;
  timeZone?: string;
  calls: Call[];
};

function play(definition: FlowDefinition, start: FlowRun, calls: Call[], timeZone = 'UTC'): void {
  let run = start;
  for (const [i, call] of calls.entries()) {
    const result = advance(definition, run, { timeZone, facts: call.facts }, call.now);
    expect(
      result.effects.map((e) => `${e.kind}:${e.stepId}`),
      `call ${i}`,
    ).toEqual(call.effects);
    expect(result.run, `call ${i}`).toMatchObject(call.run);
    expect(result.needs?.stepId ?? null, `call ${i}`).toBe(call.needs ?? null);
    run = result.run;
  }
}

export const tag = (name: string) => ({ tag: name });
export const send = (id: number) => ({ email: { id } });
export const wait = (amount: number, unit = 'days') => ({ wait: { mode: 'duration', amount, unit } });

/** One test per scenario, named by it, under 'advance scenarios'. */
export function describeScenarios(scenarios: Scenario[]): void {
  describe('advance scenarios', () => {
    for (const scenario of scenarios)
      it(scenario.name, () =>
        play(scenario.flow, scenario.start ?? runAt(1), scenario.calls, scenario.timeZone),
      );
  });
}
