import type { Condition, ConditionNode, ConditionVerdict } from '@herald/contracts';

/** Words for a simulated filter's verdicts: each condition, yes or no, and the person's value it looked at. */

const words = (s: string) => s.replace(/([A-Z])/g, ' $1').toLowerCase();
const quoted = (v: unknown) => (typeof v === 'string' ? `“${v}”` : String(v));

/** One line saying what a condition asks ('plan equals “pro”', 'has tag “vip”', 'event “purchase” at least 1 ever'). */
export function describeCondition(node: Condition): string {
  switch (node.type) {
    case 'field':
      return `${node.field} ${words(node.operator)}${node.value === undefined ? '' : ` ${quoted(node.value)}`}`;
    case 'tag':
      return `${node.operator === 'has' ? 'has' : 'does not have'} tag ${quoted(node.tag)}`;
    case 'event':
      return `event ${quoted(node.name)} ${words(node.count.operator)} ${node.count.value} ${node.window.type === 'ever' ? 'ever' : node.window.type === 'inTheLast' ? `in the last ${node.window.days} days` : `between ${node.window.from} and ${node.window.to}`}`;
    case 'emailActivity':
      return `email ${node.activity}${node.performed ? '' : ' (not)'}${node.subject.type === 'any' ? '' : ` (${node.subject.type} ${node.subject.id})`}`;
    case 'segment':
      return `${node.operator === 'in' ? 'in' : 'not in'} segment ${node.segmentId}`;
    case 'pageVisited':
      return `${node.performed ? 'visited' : 'did not visit'} a page whose URL ${words(node.match)} ${quoted(node.url)}`;
    case 'formSubmitted':
      return `${node.performed ? 'submitted' : 'did not submit'} ${node.form ? `form ${quoted(node.form)}` : 'a form'}`;
    case 'created':
      return `added ${words(node.operator)} ${String(node.value)}`;
    case 'status':
      return `is ${node.status}`;
  }
}

/** The person's value a condition compared, in words (fields and tags); null for conditions over events. */
function personValue(node: Condition, person: Record<string, unknown>): string | null {
  if (node.type === 'field') {
    const value = person[node.field];
    return value === undefined || value === null || value === ''
      ? 'the person’s value: not set'
      : `the person’s value: ${quoted(value)}`;
  }
  if (node.type === 'tag') {
    const tags = Array.isArray(person.tags) ? (person.tags as string[]) : [];
    return `the person’s tags: ${tags.length ? tags.join(', ') : 'none'}`;
  }
  return null;
}

/** The verdicts as one sentence per leaf: 'plan equals “pro”: yes (the person’s value: “pro”)'. */
export function explainVerdicts(
  verdicts: readonly ConditionVerdict[],
  person: Record<string, unknown>,
): string {
  const lines: string[] = [];
  const walk = (list: readonly ConditionVerdict[]) => {
    for (const v of list) {
      if (v.node.type === 'group') {
        walk(v.children ?? []);
        continue;
      }
      const value = personValue(v.node, person);
      lines.push(`${describeCondition(v.node)}: ${v.matches ? 'yes' : 'no'}${value ? ` (${value})` : ''}`);
    }
  };
  walk(verdicts);
  return lines.join('; ');
}

/** A node list as a group the explain query takes (filters hold one condition, segments a list). */
export const asNodes = (nodes: ConditionNode | readonly ConditionNode[]): ConditionNode[] =>
  Array.isArray(nodes) ? [...nodes] : [nodes as ConditionNode];
