import { flowMessages, stepTypeOf } from '@herald/contracts';
import { parseStepConfig } from './config.ts';
import { handlerOf } from './registry.ts';
import type { EffectBody, StepOutcome } from './step-handler.ts';
import type { AdvanceInput, AdvanceResult, Effect, EngineStep, FlowDefinition, FlowRun } from './types.ts';
import { safeTimeZone } from './zoned-time.ts';

/**
 * Most steps one call executes. A flow has at most 200 steps and validateFlow refuses a loop without a real wait,
 * so only a loop through waits that pass at once (a zero wait, a past date, an open weekday window) reaches it:
 * such a run fails rather than going round forever.
 */
export const maxStepsPerCall = 256;

const isOver = (run: FlowRun) => run.status === 'done' || run.status === 'exited' || run.status === 'failed';

/** The link a run follows out of a step: the first whose condition is `branch` (null: the plain link). */
export function nextStepId(flow: FlowDefinition, stepId: number, branch: string | null): number | null {
  return flow.links.find((l) => l.source === stepId && l.condition === branch)?.target ?? null;
}

/**
 * Execute a run from its current step until it waits, ends, fails or needs a filter's answer (see README.md).
 * Pure: the same flow, run, input and now always give the same result.
 */
export function advance(flow: FlowDefinition, run: FlowRun, input: AdvanceInput, now: Date): AdvanceResult {
  const unchanged: AdvanceResult = { run, effects: [], needs: null };
  if (isOver(run)) return unchanged;
  if (run.status === 'waiting' && run.wakeAt !== null && Date.parse(run.wakeAt) > now.getTime()) return unchanged;

  const timeZone = safeTimeZone(input.timeZone);
  const effects: Effect[] = [];
  let current: FlowRun = { ...run, status: 'active', wakeAt: null };
  const finish = (patch: Partial<FlowRun>, needs: AdvanceResult['needs'] = null): AdvanceResult => {
    const next = { ...current, ...patch };
    // Nothing moved (a run stopped again at the same filter): hand back the run as it came.
    if (effects.length === 0 && needs && run.status === 'active' && next.stepId === run.stepId) return { run, effects, needs };
    return { run: next, effects, needs };
  };

  for (let executed = 0; ; executed += 1) {
    if (current.stepId === null) return finish({ status: 'done' });
    const step = flow.steps.get(current.stepId);
    if (!step) return finish({ status: 'exited', stepId: null, lastError: flowMessages.stepRemoved });
    if (executed >= maxStepsPerCall) return finish({ status: 'failed', lastError: flowMessages.loopWithoutWait });

    const handler = handlerOf(step.operationKey);
    let config = step.config;
    if (!handler.isEntryOnly) {
      const parsed = parseStepConfig(step.operationKey, step.config);
      if (!parsed.ok) return finish({ status: 'failed', lastError: parsed.message });
      config = parsed.config;
    }
    const fact = stepTypeOf(step.operationKey) === 'filter' ? input.facts?.[step.id] : undefined;
    if (stepTypeOf(step.operationKey) === 'filter' && fact === undefined) return finish({}, { stepId: step.id });

    const outcome: StepOutcome = handler.execute(config as never, { run: current, step, now, timeZone, fact });
    const seq = current.seq + 1;
    record(effects, run.id, seq, step, outcome.effects);
    current = { ...current, seq };

    if (outcome.kind === 'end') return finish({ status: 'done', stepId: null });
    const target = nextStepId(flow, step.id, outcome.kind === 'next' ? outcome.branch : null);
    if (outcome.kind === 'wait' && target !== null && outcome.wakeAt.getTime() > now.getTime()) {
      return finish({ status: 'waiting', stepId: target, wakeAt: outcome.wakeAt.toISOString() });
    }
    current = { ...current, stepId: target };
  }
}

function record(effects: Effect[], runId: number, seq: number, step: EngineStep, bodies: EffectBody[]): void {
  const key = `${runId}:${seq}`;
  effects.push({ key, stepId: step.id, kind: 'executed', operationKey: step.operationKey });
  for (const body of bodies) effects.push({ ...body, key, stepId: step.id } as Effect);
}
