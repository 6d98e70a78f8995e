import type { OperationConfig } from '@herald/contracts';
import { next, type StepHandler } from '../step-handler.ts';

/**
 * A 32-bit hash of the run and step (FNV-1a, then a murmur3 finaliser to spread nearby ids), so the same person
 * always takes the same variant at a step, and runs spread over the variants by weight without randomness.
 */
export function abBucket(runId: number, stepId: number): number {
  let h = 0x811c9dc5;
  for (const ch of `${runId}:${stepId}`) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The variant a run takes at an A/B step: by weight, from abBucket. */
export function chooseVariant(config: OperationConfig<'/ab-test'>, runId: number, stepId: number): string {
  const total = config.variants.reduce((sum, v) => sum + v.weight, 0);
  let point = abBucket(runId, stepId) % total;
  for (const variant of config.variants) {
    if (point < variant.weight) return variant.name;
    point -= variant.weight;
  }
  return config.variants[config.variants.length - 1]!.name;
}

/** Split people between variants by weight; each variant's link has the variant's name as its condition. */
export const abTestHandler: StepHandler<'/ab-test'> = {
  label: 'A/B test',
  description: 'Splits people between paths by weight.',
  icon: 'IconArrowsSplit',
  execute: (config, { run, step }) => next([], chooseVariant(config, run.id, step.id)),
};
