import { flowMessages, stepTypeOf, type OperationKey } from '@herald/contracts';
import { parseStepConfig } from './config.ts';
import { handlerOf } from './registry.ts';
import type { EffectBody } from './step-handler.ts';
import type { AdvanceInput, AdvanceResult, Effect, EngineLink, FlowDefinition, FlowRun } from './types.ts';
import { safeTimeZone } from './zoned-time.ts';

/**
 * Most steps one call executes. A flow has at most 200 steps and validateFlow refuses a loop without a real wait,
 * so only a loop through waits that pass at once (a zero wait, a past date, an open weekday window) reaches it:
 * such a run fails rather than going round forever.
 */
export const maxStepsPerCall = 256;

/** Links by source step, per links array (a flow is loaded once for a batch of runs). */
const linkIndexes = new WeakMap<readonly EngineLink[], Map<number, EngineLink[]>>();

/** The link a run follows out of a step: the first whose condition is `branch` (null: the plain link). */
export function nextStepId(flow: FlowDefinition, stepId: number, branch: string | null): number | null {
  let index = linkIndexes.get(flow.links);
  if (!index) {
    index = new Map();
    for (const link of flow.links) {
      const list = index.get(link.source);
      if (list) list.push(link);
      else index.set(link.source, [link]);
    }
    linkIndexes.set(flow.links, index);
  }
  return index.get(stepId)?.find((l) => l.condition === branch)?.target ?? null;
}

/**
 * Execute a run from its current step until it waits, ends, fails or needs a filter's answer (see README.md).
 * Pure: the same flow, run, input and now always give the same result.
 */
export function advance(flow: FlowDefinition, run: FlowRun, input: AdvanceInput, now: Date): AdvanceResult {
  if (run.status === 'done' || run.status === 'exited' || run.status === 'failed')
    return { run, effects: [], needs: null };
  if (run.status === 'waiting' && run.wakeAt !== null && Date.parse(run.wakeAt) > now.getTime())
    return { run, effects: [], needs: null };

  const timeZone = safeTimeZone(input.timeZone);
  const effects: Effect[] = [];
  let stepId = run.stepId;
  let seq = run.seq;
  const result = (
    patch: Pick<FlowRun, 'status'> & Partial<FlowRun>,
    needs: AdvanceResult['needs'] = null,
  ): AdvanceResult => ({
    run: { ...run, stepId, seq, wakeAt: null, ...patch },
    effects,
    needs,
  });

  for (let executed = 0; ; executed += 1) {
    if (stepId === null) return result({ status: 'done' });
    const step = flow.steps.get(stepId);
    if (!step) return result({ status: 'exited', stepId: null, lastError: flowMessages.stepRemoved });
    if (executed >= maxStepsPerCall)
      return result({ status: 'failed', lastError: flowMessages.loopWithoutWait });

    const handler = handlerOf(step.operationKey);
    let config = step.config;
    if (!handler.isEntryOnly) {
      const parsed = parseStepConfig(step.operationKey, step.config);
      if (!parsed.ok) return result({ status: 'failed', lastError: parsed.message });
      config = parsed.config;
    }
    let fact: boolean | undefined;
    if (stepTypeOf(step.operationKey) === 'filter') {
      fact = input.facts?.[step.id];
      if (fact === undefined) {
        // Stopped again where it stood, with nothing done: hand back the run as it came.
        if (executed === 0 && run.status === 'active') return { run, effects, needs: { stepId: step.id } };
        return result({ status: 'active' }, { stepId: step.id });
      }
    }

    const outcome = handler.execute(config as never, {
      run: { ...run, stepId, seq },
      step,
      now,
      timeZone,
      fact,
    });
    seq += 1;
    record(effects, `${run.id}:${seq}`, step.id, step.operationKey, outcome.effects);

    if (outcome.kind === 'end') return result({ status: 'done', stepId: null });
    stepId = nextStepId(flow, step.id, outcome.kind === 'next' ? outcome.branch : null);
    if (outcome.kind === 'wait' && stepId !== null && outcome.wakeAt.getTime() > now.getTime()) {
      return result({ status: 'waiting', wakeAt: outcome.wakeAt.toISOString() });
    }
  }
}

function record(
  effects: Effect[],
  key: string,
  stepId: number,
  operationKey: OperationKey,
  bodies: EffectBody[],
): void {
  effects.push({ key, stepId, kind: 'executed', operationKey });
  for (const body of bodies) effects.push(Object.assign({ key, stepId }, body) as Effect);
}
