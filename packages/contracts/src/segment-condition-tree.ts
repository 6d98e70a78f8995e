import { z } from 'zod';
import { Condition } from './segment-conditions.ts';
import { segmentLimits, segmentMessages } from './segment-messages.ts';

/** An AND/OR group of conditions and further groups. */
export interface ConditionGroup {
  type: 'group';
  operator: 'and' | 'or';
  conditions: ConditionNode[];
}
export type ConditionNode = Condition | ConditionGroup;

export const ConditionGroup: z.ZodType<ConditionGroup> = z.lazy(() =>
  z.strictObject({
    type: z.literal('group'),
    operator: z.enum(['and', 'or']),
    conditions: z.array(ConditionNode).max(segmentLimits.maxConditions),
  }),
);
export const ConditionNode: z.ZodType<ConditionNode> = z.lazy(() => z.union([ConditionGroup, Condition]));
// The recursive tree is a named schema, so the OpenAPI document can point at it (a cycle cannot be inlined).
z.globalRegistry.add(ConditionGroup, { id: 'SegmentConditionGroup' });
z.globalRegistry.add(ConditionNode, { id: 'SegmentConditionNode' });

/** Depth of a list of nodes: a flat list is 1, each nested group adds one. */
export function conditionDepth(nodes: readonly ConditionNode[]): number {
  let depth = 1;
  for (const node of nodes)
    if (node.type === 'group') depth = Math.max(depth, 1 + conditionDepth(node.conditions));
  return depth;
}
/** Number of leaf conditions in a list of nodes. */
export function conditionCount(nodes: readonly ConditionNode[]): number {
  let count = 0;
  for (const node of nodes) count += node.type === 'group' ? conditionCount(node.conditions) : 1;
  return count;
}
/** A canonical text of a node (keys sorted) so equal conditions compare equal. */
export function conditionKey(node: ConditionNode): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object')
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
      );
    return value;
  };
  return JSON.stringify(canonical(node));
}
/** True when some group (or the top list) holds the same condition twice. */
export function hasDuplicateCondition(nodes: readonly ConditionNode[]): boolean {
  const seen = new Set<string>();
  for (const node of nodes) {
    if (node.type === 'group' && hasDuplicateCondition(node.conditions)) return true;
    const key = conditionKey(node);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/**
 * A segment's conditions: the top-level list is joined by AND. Depth, count and duplicates are
 * checked here, so every caller refuses the same trees with the same words.
 */
export const SegmentConditions = z
  .array(z.unknown())
  .max(segmentLimits.maxConditions, segmentMessages.tooMany(segmentLimits.maxConditions))
  .superRefine((raw, ctx) => {
    // Depth and count are checked before the recursive parse, so a 10,000-level tree never reaches it.
    const depthOf = (value: unknown, level: number): number => {
      if (level > segmentLimits.maxDepth + 1) return level;
      if (!value || typeof value !== 'object' || (value as { type?: unknown }).type !== 'group') return level;
      const children = (value as { conditions?: unknown }).conditions;
      if (!Array.isArray(children)) return level;
      return Math.max(level + 1, ...children.map((c) => depthOf(c, level + 1)));
    };
    const countOf = (value: unknown, budget: { left: number }): void => {
      if (budget.left < 0) return;
      if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'group') {
        const children = (value as { conditions?: unknown }).conditions;
        if (Array.isArray(children)) for (const c of children) countOf(c, budget);
      } else budget.left -= 1;
    };
    if (Math.max(1, ...raw.map((n) => depthOf(n, 1))) > segmentLimits.maxDepth) {
      ctx.addIssue({ code: 'custom', message: segmentMessages.tooDeep(segmentLimits.maxDepth) });
      return;
    }
    const budget = { left: segmentLimits.maxConditions };
    for (const node of raw) countOf(node, budget);
    if (budget.left < 0)
      ctx.addIssue({ code: 'custom', message: segmentMessages.tooMany(segmentLimits.maxConditions) });
  })
  .pipe(z.array(ConditionNode))
  .refine((nodes) => !hasDuplicateCondition(nodes), segmentMessages.duplicateCondition);
