import { advance } from './advance.ts';
import { chooseVariant } from './steps/ab-test.ts';
import { waitOf } from './steps/delay.ts';
import { parseStepConfig } from './config.ts';
import { isWaitOperation } from './registry.ts';
import type { Effect, FlowDefinition, FlowRun } from './types.ts';
import { nextWakeTime } from './wait-time.ts';
import type { OperationConfig, OperationKey } from '@herald/contracts';

/**
 * A dry run of one flow for one person on a simulated clock: the same `advance` the runtime calls, driven by a loop
 * that jumps the clock from one wake time to the next. The caller answers filters and sees every effect (it decides
 * what "applying" one means for a simulated person); nothing here has side effects of its own.
 */

/** What the caller answers about the person, at a moment of the simulated clock. */
export interface SimulationHooks {
  /** A filter step's answer, or why it cannot be answered (the run then fails there, as a real run does). */
  answer(stepId: number, at: Date): Promise<boolean | { problem: string }>;
  /**
   * The effects of the steps just executed, in order, at `at` (tag and field changes feed later filters). A problem
   * (an email that no longer exists) fails the run at the step of effect number `seq`, as a real run fails softly.
   */
  apply(effects: readonly Effect[], at: Date): Promise<void | { seq: number; problem: string }>;
  /** Whether the person has reached the flow's goal at `at`; absent when the flow has none. */
  reached?(at: Date): Promise<boolean>;
}

export interface SimulationOptions {
  /** The trigger the person enters at. */
  startStepId: number;
  start: Date;
  /** The clock never goes past it. */
  until: Date;
  timeZone: string;
  /** Steps executed at most. */
  maxSteps: number;
  /** Moments the person changes while waiting (their events): the goal is checked then too. */
  moments?: readonly Date[];
  /** The made-up run's id (an A/B step picks its variant from it). */
  runId?: number;
  personId?: number;
}

export type SimulationEnding = 'done' | 'converted' | 'exited' | 'failed' | 'horizon' | 'stepLimit';

export interface SimulatedStepRecord {
  seq: number;
  stepId: number;
  operationKey: OperationKey;
  at: Date;
  /** Filters: the answer; A/B tests: the variant. */
  branch?: string;
  /** Waits: when the run goes on (it may be at once). */
  wakeAt?: Date;
  effects: Effect[];
}

export interface SimulationOutcome {
  steps: SimulatedStepRecord[];
  ended: SimulationEnding;
  /** The run's error when it failed or exited. */
  reason: string | null;
  convertedAt: Date | null;
  /** A run still waiting at the horizon wakes then. */
  wakeAt: Date | null;
  run: FlowRun;
}

/** The wake time a wait step computes when executed at `at` (null when its configuration does not parse). */
function waitEnd(flow: FlowDefinition, stepId: number, at: Date, timeZone: string): Date | null {
  const step = flow.steps.get(stepId);
  if (!step || !isWaitOperation(step.operationKey)) return null;
  const parsed = parseStepConfig(step.operationKey, step.config);
  if (!parsed.ok) return null;
  return nextWakeTime(
    waitOf(parsed.config as OperationConfig<'/delay'> | OperationConfig<'/delay-v2'>),
    at,
    timeZone,
  );
}

export async function simulateRun(
  flow: FlowDefinition,
  options: SimulationOptions,
  hooks: SimulationHooks,
): Promise<SimulationOutcome> {
  let run: FlowRun = {
    id: options.runId ?? 0,
    flowId: flow.id,
    personId: options.personId ?? 0,
    stepId: options.startStepId,
    status: 'active',
    wakeAt: null,
    seq: 0,
    lastError: null,
  };
  const steps: SimulatedStepRecord[] = [];
  const moments = [...(options.moments ?? [])].map((m) => m.getTime()).sort((a, b) => a - b);
  const until = options.until.getTime();
  let now = options.start;
  let facts: Record<number, boolean> = {};
  const outcome = (ended: SimulationEnding, patch: Partial<SimulationOutcome> = {}): SimulationOutcome => ({
    steps,
    ended,
    reason: run.lastError,
    convertedAt: null,
    wakeAt: null,
    run,
    ...patch,
  });

  if (hooks.reached && (await hooks.reached(now))) return outcome('converted', { convertedAt: now });
  for (;;) {
    const result = advance(flow, run, { facts, timeZone: options.timeZone }, now);
    const executed = result.effects.filter((e) => e.kind === 'executed');
    if (steps.length + executed.length > options.maxSteps) {
      return outcome('stepLimit');
    }
    for (const effect of executed) {
      const seq = Number(effect.key.slice(effect.key.indexOf(':') + 1));
      const record: SimulatedStepRecord = {
        seq,
        stepId: effect.stepId,
        operationKey: effect.operationKey,
        at: now,
        effects: result.effects.filter((e) => e.key === effect.key && e.kind !== 'executed'),
      };
      if (effect.operationKey === '/ab-test') {
        const parsed = parseStepConfig('/ab-test', flow.steps.get(effect.stepId)!.config);
        if (parsed.ok)
          record.branch = chooseVariant(parsed.config as OperationConfig<'/ab-test'>, run.id, effect.stepId);
      } else if (facts[effect.stepId] !== undefined) {
        record.branch = facts[effect.stepId] ? 'yes' : 'no';
      }
      const wake = waitEnd(flow, effect.stepId, now, options.timeZone);
      if (wake) record.wakeAt = wake;
      steps.push(record);
    }
    run = result.run;
    const applied = await hooks.apply(result.effects, now);
    if (applied) {
      const failedAt = steps.find((s) => s.seq === applied.seq)?.stepId ?? run.stepId;
      const kept = steps.filter((s) => s.seq < applied.seq);
      steps.length = 0;
      steps.push(...kept);
      run = {
        ...run,
        status: 'failed',
        stepId: failedAt,
        seq: applied.seq - 1,
        wakeAt: null,
        lastError: applied.problem,
      };
      return outcome('failed');
    }
    if (hooks.reached && (await hooks.reached(now))) return outcome('converted', { convertedAt: now });

    if (result.needs) {
      const answer = await hooks.answer(result.needs.stepId, now);
      if (typeof answer !== 'boolean') {
        run = { ...run, status: 'failed', lastError: answer.problem };
        return outcome('failed');
      }
      facts = { ...facts, [result.needs.stepId]: answer };
      continue;
    }
    if (run.status === 'done') return outcome('done');
    if (run.status === 'exited') return outcome('exited');
    if (run.status === 'failed') return outcome('failed');
    if (run.status !== 'waiting' || run.wakeAt === null) return outcome('failed');

    // Waiting: the person may change (their events) before the wake time; the goal is checked at each change.
    const wakeMs = Date.parse(run.wakeAt);
    for (const moment of moments) {
      if (moment <= now.getTime() || moment >= wakeMs || moment > until) continue;
      if (hooks.reached && (await hooks.reached(new Date(moment))))
        return outcome('converted', { convertedAt: new Date(moment) });
    }
    if (wakeMs > until) return outcome('horizon', { wakeAt: new Date(wakeMs) });
    now = new Date(wakeMs);
    // Answers belong to a moment: a filter met again after a wait is asked again.
    facts = {};
  }
}
