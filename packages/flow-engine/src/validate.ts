import { flowMessages, filterBranches, operationConfigs, stepTypeOf } from '@herald/contracts';
import { stepLabel } from './catalogue.ts';
import { parseStepConfig } from './config.ts';
import { isWaitOperation } from './registry.ts';
import { waitOf } from './steps/delay.ts';
import type { EngineLink, EngineStep, FlowDefinition } from './types.ts';

/**
 * True when a step surely stops a run that goes round a loop: a wait of at least one minute. A wait until a date
 * passes at once after that date, and a weekday wait passes at once inside its window, so neither breaks a loop.
 * A wait not set up yet counts as one (so a loop can be drawn before the wait is configured); activation then
 * checks it with its configuration.
 */
export function isPausingStep(step: EngineStep, configured = false): boolean {
  if (!isWaitOperation(step.operationKey)) return false;
  const parsed = operationConfigs[step.operationKey].safeParse(step.config);
  if (!parsed.success) return !configured;
  const wait = waitOf(parsed.data);
  return wait.mode === 'duration' && wait.amount > 0;
}

/** The branches a step offers: 'yes'/'no' for a filter, the variant names of an A/B test, none otherwise (plain). */
export function stepBranches(step: EngineStep): string[] | null {
  if (stepTypeOf(step.operationKey) === 'filter') return [...filterBranches];
  if (step.operationKey === '/ab-test') {
    const parsed = operationConfigs['/ab-test'].safeParse(step.config);
    return parsed.success ? parsed.data.variants.map((v) => v.name) : [];
  }
  return null;
}

/** Links out of each step that does not pause, to steps that do not pause: the graph a loop without a wait lives in. */
function unpausedGraph(
  flow: FlowDefinition,
  links: readonly EngineLink[],
  configured: boolean,
): Map<number, number[]> {
  const pauses = new Map([...flow.steps.values()].map((step) => [step.id, isPausingStep(step, configured)]));
  const graph = new Map<number, number[]>();
  for (const step of flow.steps.values()) if (!pauses.get(step.id)) graph.set(step.id, []);
  for (const link of links)
    if (graph.has(link.source) && graph.has(link.target)) graph.get(link.source)!.push(link.target);
  return graph;
}

/** True when adding `link` would close a loop that no wait breaks (the API refuses such a link). */
export function wouldCreateCycleWithoutWait(
  flow: FlowDefinition,
  link: Pick<EngineLink, 'source' | 'target'>,
): boolean {
  const graph = unpausedGraph(flow, flow.links, false);
  if (!graph.has(link.source) || !graph.has(link.target)) return false;
  // The new link closes a loop when its source can already be reached from its target.
  const seen = new Set<number>([link.target]);
  const stack = [link.target];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === link.source) return true;
    for (const target of graph.get(id)!) {
      if (!seen.has(target)) {
        seen.add(target);
        stack.push(target);
      }
    }
  }
  return false;
}

/** Whether some loop of the flow has no wait of at least a minute on it (a depth-first search for a back edge). */
function hasCycleWithoutWait(flow: FlowDefinition, links: readonly EngineLink[]): boolean {
  const graph = unpausedGraph(flow, links, true);
  const state = new Map<number, 'open' | 'closed'>();
  for (const root of graph.keys()) {
    if (state.has(root)) continue;
    state.set(root, 'open');
    const stack: Array<{ id: number; next: number }> = [{ id: root, next: 0 }];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const target = graph.get(frame.id)![frame.next];
      frame.next += 1;
      if (target === undefined) {
        state.set(frame.id, 'closed');
        stack.pop();
      } else if (state.get(target) === 'open') {
        return true;
      } else if (!state.has(target)) {
        state.set(target, 'open');
        stack.push({ id: target, next: 0 });
      }
    }
  }
  return false;
}

/**
 * What stops the flow from being activated, as messages from flowMessages (empty when it can run): the trigger
 * (exactly one, linked to a next step), every step set up, every branch of a filter or A/B test linked, and no
 * loop without a wait.
 */
export function validateFlow(flow: FlowDefinition): string[] {
  const problems: string[] = [];
  const steps = [...flow.steps.values()];
  const triggers = steps.filter((s) => stepTypeOf(s.operationKey) === 'trigger');
  if (triggers.length === 0) problems.push(flowMessages.noTrigger);
  if (triggers.length > 1) problems.push(flowMessages.oneTrigger);
  const links = flow.links.filter((l) => flow.steps.has(l.source) && flow.steps.has(l.target));
  if (triggers.some((t) => !links.some((l) => l.source === t.id)))
    problems.push(flowMessages.triggerHasNoNext);

  for (const step of steps) {
    const label = stepLabel(step.operationKey);
    if (!parseStepConfig(step.operationKey, step.config).ok) {
      const message = flowMessages.unconfigured(label);
      if (!problems.includes(message)) problems.push(message);
      continue;
    }
    for (const branch of stepBranches(step) ?? []) {
      if (!links.some((l) => l.source === step.id && l.condition === branch))
        problems.push(flowMessages.danglingBranch(label, branch));
    }
  }
  if (hasCycleWithoutWait(flow, links)) problems.push(flowMessages.cycleWithoutWait);
  return problems;
}
