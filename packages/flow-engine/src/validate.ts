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

/** Whether `to` can be reached from `from` along links through steps that do not pause (both ends included). */
function reachesWithoutPause(flow: FlowDefinition, links: readonly EngineLink[], from: number, to: number, configured: boolean): boolean {
  const pauses = (id: number) => {
    const step = flow.steps.get(id);
    return step ? isPausingStep(step, configured) : true;
  };
  if (pauses(from) || pauses(to)) return false;
  const seen = new Set<number>([from]);
  const queue = [from];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (id === to) return true;
    for (const link of links) {
      if (link.source !== id || seen.has(link.target) || pauses(link.target)) continue;
      seen.add(link.target);
      queue.push(link.target);
    }
  }
  return false;
}

/** True when adding `link` would close a loop that no wait breaks (the API refuses such a link). */
export function wouldCreateCycleWithoutWait(flow: FlowDefinition, link: Pick<EngineLink, 'source' | 'target'>): boolean {
  return reachesWithoutPause(flow, flow.links, link.target, link.source, false);
}

/** Whether some loop of the flow has no wait of at least a minute on it. */
function hasCycleWithoutWait(flow: FlowDefinition): boolean {
  return flow.links.some((link) => reachesWithoutPause(flow, flow.links, link.target, link.source, true));
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
  if (triggers.some((t) => !links.some((l) => l.source === t.id))) problems.push(flowMessages.triggerHasNoNext);

  for (const step of steps) {
    const label = stepLabel(step.operationKey);
    if (!parseStepConfig(step.operationKey, step.config).ok) {
      const message = flowMessages.unconfigured(label);
      if (!problems.includes(message)) problems.push(message);
      continue;
    }
    for (const branch of stepBranches(step) ?? []) {
      if (!links.some((l) => l.source === step.id && l.condition === branch)) problems.push(flowMessages.danglingBranch(label, branch));
    }
  }
  if (hasCycleWithoutWait({ ...flow, links })) problems.push(flowMessages.cycleWithoutWait);
  return problems;
}
