import { z } from 'zod';
import { ConditionNode } from './segments.ts';

/**
 * A flow's goal: segment conditions checked whenever a person in the flow changes. Reaching it ends the person's
 * run and counts a conversion for every step the run passed.
 */
export const FlowGoal = z.object({
  /** The goal's conditions (all must hold, as a segment's top level); null when the flow has no goal. */
  conditions: z.array(ConditionNode).nullable(),
});
export type FlowGoal = z.infer<typeof FlowGoal>;

export const SetFlowGoalBody = z.strictObject({
  conditions: z.array(ConditionNode).max(50).nullable(),
});

export const FlowStepConversion = z.object({
  stepId: z.number().int(),
  /** Runs that executed this step. */
  passed: z.number().int(),
  /** Of those, runs that reached the goal. */
  converted: z.number().int(),
});

export const FlowConversions = z.object({
  hasGoal: z.boolean(),
  /** Runs that reached the goal, and runs that ever entered. */
  conversions: z.number().int(),
  entries: z.number().int(),
  /** conversions / entries (0 when nobody entered). */
  rate: z.number(),
  steps: z.array(FlowStepConversion),
});
export type FlowConversions = z.infer<typeof FlowConversions>;

export const flowGoalMessages = {
  emptyGoal: 'Add at least one condition, or remove the goal.',
  saved: 'Goal saved.',
  removed: 'Goal removed.',
} as const;
