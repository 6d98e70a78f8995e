import { archivedSegmentId, segmentMessages, type Condition, type ConditionNode } from '@herald/contracts';
import type { CompileContext, ConditionCompiler } from './context.ts';
import { compilerFor } from './compile.ts';

/** Segment ids a tree refers to, directly. */
export function referencedSegments(nodes: readonly ConditionNode[]): number[] {
  return nodes.flatMap((n) =>
    n.type === 'group' ? referencedSegments(n.conditions) : n.type === 'segment' ? [n.segmentId] : [],
  );
}

/** True when following references from `nodes` reaches `target` (or loops back onto a segment on the path). */
function reachesCycle(nodes: readonly ConditionNode[], ctx: CompileContext, path: number[]): boolean {
  for (const id of referencedSegments(nodes)) {
    if (id === archivedSegmentId) continue;
    if (path.includes(id)) return true;
    const inner = ctx.segments.get(id);
    if (inner && reachesCycle(inner, ctx, [...path, id])) return true;
  }
  return false;
}

function firstProblem(nodes: readonly ConditionNode[], ctx: CompileContext): string | null {
  for (const node of nodes) {
    const problem =
      node.type === 'group'
        ? firstProblem(node.conditions, ctx)
        : (compilerFor(node.type) as ConditionCompiler<Condition['type']>).validate(node as never, ctx);
    if (problem) return problem;
  }
  return null;
}

/**
 * The first problem with a tree as the message a user sees (unknown field, operator not valid for the
 * field's type, missing or malformed value, unknown segment, a cycle through segment conditions —
 * `selfId` is the segment being saved), or null.
 */
export function validateConditions(
  nodes: readonly ConditionNode[],
  ctx: CompileContext,
  selfId?: number,
): string | null {
  const problem = firstProblem(nodes, ctx);
  if (problem) return problem;
  return reachesCycle(nodes, ctx, selfId === undefined ? [] : [selfId]) ? segmentMessages.cycle : null;
}

/** True when the tree's answer changes with time alone, including through the segments it refers to. */
export function isTimeRelative(
  nodes: readonly ConditionNode[],
  ctx: CompileContext,
  seen: ReadonlySet<number> = new Set(),
): boolean {
  return nodes.some((node) => {
    if (node.type === 'group') return isTimeRelative(node.conditions, ctx, seen);
    if (node.type === 'segment') {
      const inner = ctx.segments.get(node.segmentId);
      return (
        inner !== undefined &&
        !seen.has(node.segmentId) &&
        isTimeRelative(inner, ctx, new Set([...seen, node.segmentId]))
      );
    }
    return (compilerFor(node.type) as ConditionCompiler<Condition['type']>).isTimeRelative(node as never);
  });
}
