import { decodeInputFields, isOperationKey, type InputFields } from '@herald/contracts';
import type { EngineLink, EngineStep, FlowDefinition } from './types.ts';

export type StepRow = { id: number; operationKey: string; inputFields: InputFields | null | undefined };
export type LinkRow = { source: number; target: number; condition: string | null };

/**
 * The engine's view of a flow from its rows. A step whose operation is not native (the API refuses those) is left
 * out, so a run reaching it exits as at a removed step; a link to or from a missing step is dropped.
 */
export function toFlowDefinition(rows: {
  id: number;
  version: number;
  steps: readonly StepRow[];
  links: readonly LinkRow[];
}): FlowDefinition {
  const steps = new Map<number, EngineStep>();
  for (const row of rows.steps) {
    if (isOperationKey(row.operationKey))
      steps.set(row.id, {
        id: row.id,
        operationKey: row.operationKey,
        config: decodeInputFields(row.inputFields),
      });
  }
  const links: EngineLink[] = rows.links
    .filter((l) => steps.has(l.source) && steps.has(l.target))
    .map((l) => ({ source: l.source, target: l.target, condition: l.condition }));
  return { id: rows.id, version: rows.version, steps, links };
}
