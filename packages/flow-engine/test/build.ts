import type { OperationKey } from '@herald/contracts';
import type { EngineLink, EngineStep, FlowDefinition, FlowRun } from '../src/index.ts';

/** A flow from a compact list of steps and links (tests only). */
export function flow(
  steps: Array<[id: number, key: OperationKey, config?: Record<string, unknown>]>,
  links: Array<[source: number, target: number, condition?: string]>,
): FlowDefinition {
  return {
    id: 1,
    version: 1,
    steps: new Map<number, EngineStep>(
      steps.map(([id, operationKey, config]) => [id, { id, operationKey, config: config ?? {} }]),
    ),
    links: links.map(([source, target, condition]): EngineLink => ({
      source,
      target,
      condition: condition ?? null,
    })),
  };
}

/** A new run at a step. */
export function runAt(stepId: number, patch: Partial<FlowRun> = {}): FlowRun {
  return {
    id: 7,
    flowId: 1,
    personId: 70,
    stepId,
    status: 'active',
    wakeAt: null,
    seq: 0,
    lastError: null,
    ...patch,
  };
}

export const at = (iso: string) => new Date(iso);
