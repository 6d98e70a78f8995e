import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { segmentMessages, type Condition, type ConditionNode, type ConditionType } from '@herald/contracts';
import {
  alwaysFalse,
  alwaysTrue,
  type CompileContext,
  type CompileState,
  type ConditionCompiler,
} from './context.ts';
import { conditionCompilers } from './registry.ts';

/** The compiler of one condition, with its type kept. */
export function compilerFor<T extends ConditionType>(type: T): ConditionCompiler<T> {
  return conditionCompilers[type];
}

/** SQL of one node: a condition, or an AND/OR group (an empty AND is true, an empty OR false). */
export function compileNode(node: ConditionNode, state: CompileState): RawBuilder<SqlBool> {
  if (node.type === 'group') {
    if (node.conditions.length === 0) return node.operator === 'and' ? alwaysTrue : alwaysFalse;
    const parts = node.conditions.map((child) => compileNode(child, state));
    return sql<SqlBool>`(${sql.join(parts, node.operator === 'and' ? sql` and ` : sql` or `)})`;
  }
  return (compilerFor(node.type) as ConditionCompiler<Condition['type']>).compile(node as never, state);
}

/** True when the tree itself asks about archived people (then they are not left out). */
export function mentionsArchived(nodes: readonly ConditionNode[]): boolean {
  return nodes.some((n) =>
    n.type === 'group' ? mentionsArchived(n.conditions) : n.type === 'status' && n.status === 'archived',
  );
}

/** The state for compiling a tree, following segment references without cycles. */
export function compileState(ctx: CompileContext, expanding: readonly number[] = []): CompileState {
  return {
    ctx,
    expanding,
    segmentFilter(id) {
      if (expanding.includes(id)) throw new Error(segmentMessages.cycle);
      const nodes = ctx.segments.get(id);
      if (!nodes) throw new Error(segmentMessages.unknownSegment(id));
      return filterOf(nodes, compileState(ctx, [...expanding, id]));
    },
  };
}

function filterOf(nodes: readonly ConditionNode[], state: CompileState): RawBuilder<SqlBool> {
  const parts: RawBuilder<SqlBool>[] = [sql<SqlBool>`p.account_id = ${state.ctx.accountId}::bigint`];
  if (!mentionsArchived(nodes)) parts.push(sql<SqlBool>`p.archived_at is null`);
  for (const node of nodes) parts.push(compileNode(node, state));
  return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
}

/**
 * Boolean SQL over people aliased `p`: the account, the archived rule (archived people match only a
 * tree that asks for them) and the conditions, joined by AND. Every value is a bound parameter.
 */
export function segmentFilter(
  nodes: readonly ConditionNode[],
  ctx: CompileContext,
  selfId?: number,
): RawBuilder<SqlBool> {
  return filterOf(nodes, compileState(ctx, selfId === undefined ? [] : [selfId]));
}
