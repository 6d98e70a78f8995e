import type { Condition, ConditionNode, FieldOperator, TimeWindow } from '@herald/contracts';
import type { ConditionChoices } from './condition-choices.ts';

/** Words for operators, condition types and windows, shared by the editor and the explanations. */
export const operatorLabels: Record<FieldOperator, string> = {
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
  notContains: 'does not contain',
  startsWith: 'starts with',
  endsWith: 'ends with',
  isSet: 'is set',
  isNotSet: 'is not set',
  greaterThan: 'is greater than',
  lessThan: 'is less than',
  isTrue: 'is true',
  isFalse: 'is false',
  before: 'is before',
  after: 'is after',
  on: 'is on',
  withinLast: 'is within the last',
  withinNext: 'is within the next',
  moreThanAgo: 'is more than',
  anniversary: 'has its anniversary today',
};

export const conditionTypeLabels: Record<Condition['type'], string> = {
  field: 'Person field',
  tag: 'Tag',
  event: 'Event performed',
  emailActivity: 'Email activity',
  segment: 'In segment',
  pageVisited: 'Page visited',
  formSubmitted: 'Form submitted',
  created: 'Date added',
  status: 'Subscription status',
};

/** A time window in words: ever, in the last N days, between two dates. */
export function windowText(window: TimeWindow): string {
  if (window.type === 'ever') return 'ever';
  if (window.type === 'inTheLast') return `in the last ${window.days} ${window.days === 1 ? 'day' : 'days'}`;
  return `between ${window.from} and ${window.to}`;
}

/** How a description names the segments and fields a condition refers to. */
export interface ConditionNames {
  segment: (id: number) => string;
  field: (name: string) => string;
}

/** Names from the editor's choices: a segment's name and a field's title, else the raw id or name. */
export function conditionNames(choices: Pick<ConditionChoices, 'segments' | 'fields'>): ConditionNames {
  return {
    segment: (id) => choices.segments.find((s) => s.id === id)?.name ?? `segment ${id}`,
    field: (name) => choices.fields.find((f) => f.name === name)?.title ?? name,
  };
}

/** One line saying what a node asks, for read-only views and "why in or out". */
export function describeNode(
  node: ConditionNode,
  names: ConditionNames = conditionNames({ segments: [], fields: [] }),
): string {
  switch (node.type) {
    case 'group':
      return node.operator === 'and' ? 'All of these' : 'Any of these';
    case 'field': {
      const value = node.value === undefined ? '' : ` ${String(node.value)}`;
      const unit = ['withinLast', 'withinNext'].includes(node.operator)
        ? ' days'
        : node.operator === 'moreThanAgo'
          ? ' days ago'
          : '';
      return `${names.field(node.field)} ${operatorLabels[node.operator]}${value}${unit}`;
    }
    case 'tag':
      return `${node.operator === 'has' ? 'Has' : 'Does not have'} tag “${node.tag}”`;
    case 'event': {
      const count = `${node.count.operator === 'atLeast' ? 'at least' : node.count.operator === 'atMost' ? 'at most' : 'exactly'} ${node.count.value}×`;
      return `Performed “${node.name}” ${count} ${windowText(node.window)}${node.properties.length ? ` (${node.properties.length} property filters)` : ''}`;
    }
    case 'emailActivity': {
      const subject = node.subject.type === 'any' ? 'any email' : `${node.subject.type} #${node.subject.id}`;
      return `${node.performed ? '' : 'Did not: '}${node.activity} ${subject} ${windowText(node.window)}`;
    }
    case 'segment':
      return `${node.operator === 'in' ? 'Is in' : 'Is not in'} ${names.segment(node.segmentId)}`;
    case 'pageVisited':
      return `${node.performed ? 'Visited' : 'Did not visit'} a page whose URL ${node.match === 'pattern' ? 'matches' : node.match === 'startsWith' ? 'starts with' : node.match} “${node.url}” ${windowText(node.window)}`;
    case 'formSubmitted':
      return `${node.performed ? 'Submitted' : 'Did not submit'} ${node.form ? `the form “${node.form}”` : 'any form'} ${windowText(node.window)}`;
    case 'created':
      return `Added ${operatorLabels[node.operator].replace(/^is /, '')} ${node.value}${typeof node.value === 'number' ? ' days' : ''}${node.operator === 'moreThanAgo' ? ' ago' : ''}`;
    case 'status':
      return `Is ${node.status}`;
  }
}

/** A fresh condition of a type, with sensible defaults for the editor. */
export function newCondition(type: Condition['type'], otherSegmentId: number | undefined): Condition {
  switch (type) {
    case 'field':
      return { type, field: 'email', operator: 'contains', value: '' };
    case 'tag':
      return { type, operator: 'has', tag: '' };
    case 'event':
      return {
        type,
        name: '',
        count: { operator: 'atLeast', value: 1 },
        window: { type: 'ever' },
        properties: [],
      };
    case 'emailActivity':
      return {
        type,
        activity: 'opened',
        performed: true,
        subject: { type: 'any' },
        window: { type: 'inTheLast', days: 30 },
      };
    case 'segment':
      return { type, operator: 'in', segmentId: otherSegmentId ?? 1 };
    case 'pageVisited':
      return { type, performed: true, match: 'contains', url: '', window: { type: 'ever' } };
    case 'formSubmitted':
      return { type, performed: true, window: { type: 'ever' } };
    case 'created':
      return { type, operator: 'withinLast', value: 30 };
    case 'status':
      return { type, status: 'unsubscribed' };
  }
}
