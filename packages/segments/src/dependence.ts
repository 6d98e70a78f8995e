import { archivedSegmentId, type ConditionNode } from '@herald/contracts';
import type { CompileContext } from './context.ts';

/**
 * What of a person a tree of conditions reads that an update of their tags alone can change: the tags its tag
 * conditions name, and whether it reads `updatedAt` (which every update sets). Referenced segments are followed.
 * A person whose tags alone changed needs a re-check against the tree only when one of the changed tags is among
 * `tags`, or when `updatedAt` is read.
 */
export interface TagChangeReads {
  tags: ReadonlySet<string>;
  updatedAt: boolean;
}

export function tagChangeReads(nodes: readonly ConditionNode[], ctx: CompileContext): TagChangeReads {
  const tags = new Set<string>();
  let updatedAt = false;
  const seen = new Set<number>();
  const visit = (list: readonly ConditionNode[]) => {
    for (const node of list) {
      if (node.type === 'group') visit(node.conditions);
      else if (node.type === 'tag') tags.add(node.tag);
      else if (node.type === 'field' && node.field === 'updatedAt') updatedAt = true;
      else if (node.type === 'segment' && node.segmentId !== archivedSegmentId && !seen.has(node.segmentId)) {
        seen.add(node.segmentId);
        visit(ctx.segments.get(node.segmentId) ?? []);
      }
    }
  };
  visit(nodes);
  return { tags, updatedAt };
}

/** Whether a change of `changed` tags alone (null: any change) can move a person in or out of what `reads` describes. */
export function tagChangeMatters(reads: TagChangeReads, changed: readonly string[] | null): boolean {
  return changed === null || reads.updatedAt || changed.some((tag) => reads.tags.has(tag));
}
