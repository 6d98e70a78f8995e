import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ConditionNode, ConditionVerdict } from '@herald/contracts';
import type { CompileContext } from './context.ts';
import { compileNode, compileState, segmentFilter } from './compile.ts';

interface Numbered {
  node: ConditionNode;
  column: string;
  children?: Numbered[];
}

function number(nodes: readonly ConditionNode[], next: { n: number }): Numbered[] {
  return nodes.map((node) => {
    const column = `c${next.n++}`;
    return node.type === 'group'
      ? { node, column, children: number(node.conditions, next) }
      : { node, column };
  });
}

function flatten(list: Numbered[]): Numbered[] {
  return list.flatMap((n) => [n, ...flatten(n.children ?? [])]);
}

/**
 * Why a person is in or out: one query with a boolean column per node (and `matches` for the whole
 * tree) for one person, and the mapping of its row to verdicts in the tree's shape.
 */
export function explainQuery(
  nodes: readonly ConditionNode[],
  ctx: CompileContext,
  personId: number,
  selfId?: number,
): {
  query: RawBuilder<Record<string, boolean>>;
  toVerdicts(row: Record<string, boolean>): ConditionVerdict[];
} {
  const numbered = number(nodes, { n: 0 });
  const state = compileState(ctx, selfId === undefined ? [] : [selfId]);
  const columns = flatten(numbered).map(
    (n) => sql`coalesce(${compileNode(n.node, state)}, false) as ${sql.ref(n.column)}`,
  );
  const matches = sql<SqlBool>`coalesce(${segmentFilter(nodes, ctx, selfId)}, false) as matches`;
  const query = sql<Record<string, boolean>>`select ${sql.join([matches, ...columns])}
    from people p where p.account_id = ${ctx.accountId}::bigint and p.id = ${personId}::bigint`;
  const toVerdicts = (row: Record<string, boolean>): ConditionVerdict[] => {
    const walk = (list: Numbered[]): ConditionVerdict[] =>
      list.map((n) => ({
        node: n.node,
        matches: row[n.column] === true,
        ...(n.children ? { children: walk(n.children) } : {}),
      }));
    return walk(numbered);
  };
  return { query, toVerdicts };
}
