import {
  archivedSegmentId,
  type Condition,
  type ConditionNode,
  type ConditionOf,
  type TimeWindow,
} from '@herald/contracts';
import type { DataSet, TestEvent, TestPerson } from './data-set.ts';

/**
 * The segment rules written once more in plain TypeScript over in-memory data, to check the SQL
 * compiler against: same inputs, the same set of people.
 */
const day = 86_400_000;
const lower = (s: string) => s.toLowerCase();

function parseDate(value: string): Date | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const d = new Date(`${value}T00:00:00Z`);
    return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value ? null : d;
  }
  const d = new Date(value);
  return /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(d.getTime()) ? d : null;
}
function range(value: string): { start: Date; end: Date } {
  const start = parseDate(value)!;
  return { start, end: new Date(start.getTime() + (/^\d{4}-\d{2}-\d{2}$/.test(value) ? day : 1)) };
}

type Value = string | number | boolean | Date | null;

function fieldOf(person: TestPerson, name: string, type: string): Value {
  switch (name) {
    case 'email':
      return person.email;
    case 'firstName':
      return person.firstName;
    case 'createdAt':
      return person.createdAt;
    case 'unsubscribed':
      return person.unsubscribed;
    case 'lastName':
    case 'phone':
    case 'company':
    case 'website':
    case 'userId':
    case 'unsubscribeReason':
      return null;
  }
  const raw = person.fields[name];
  if (raw === undefined) return null;
  if (type === 'number') return typeof raw === 'number' ? raw : null;
  if (type === 'boolean') return typeof raw === 'boolean' ? raw : null;
  if (type === 'date') return typeof raw === 'string' ? parseDate(raw) : null;
  return typeof raw === 'string' ? raw : String(raw);
}

function compareDate(value: Date | null, operator: string, raw: unknown, now: Date): boolean {
  if (operator === 'isSet') return value !== null;
  if (operator === 'isNotSet') return value === null;
  if (value === null) return false;
  const t = value.getTime();
  const days = Number(raw) * day;
  switch (operator) {
    case 'before':
      return t < range(String(raw)).start.getTime();
    case 'after':
      return t >= range(String(raw)).end.getTime();
    case 'on': {
      const r = range(String(raw));
      return t >= r.start.getTime() && t < r.end.getTime();
    }
    case 'withinLast':
      return t >= now.getTime() - days && t <= now.getTime();
    case 'withinNext':
      return t >= now.getTime() && t <= now.getTime() + days;
    case 'moreThanAgo':
      return t < now.getTime() - days;
    case 'anniversary':
      return value.toISOString().slice(5, 10) === now.toISOString().slice(5, 10);
  }
  return false;
}

function field(
  person: TestPerson,
  c: ConditionOf<'field'>,
  types: ReadonlyMap<string, string>,
  now: Date,
): boolean {
  const type = types.get(c.field)!;
  const value = fieldOf(person, c.field, type);
  if (type === 'date') return compareDate(value as Date | null, c.operator, c.value, now);
  if (type === 'boolean') {
    if (c.operator === 'isTrue') return value === true;
    if (c.operator === 'isFalse') return value === false;
    return c.operator === 'isSet' ? value !== null : value === null;
  }
  if (type === 'number') {
    const n = value as number | null;
    const v = Number(c.value);
    switch (c.operator) {
      case 'equals':
        return n !== null && n === v;
      case 'notEquals':
        return n === null || n !== v;
      case 'greaterThan':
        return n !== null && n > v;
      case 'lessThan':
        return n !== null && n < v;
      case 'isSet':
        return n !== null;
      default:
        return n === null;
    }
  }
  const s = value === null ? null : lower(String(value));
  const v = lower(String(c.value ?? ''));
  switch (c.operator) {
    case 'equals':
      return s !== null && s === v;
    case 'notEquals':
      return s === null || s !== v;
    case 'contains':
      return s !== null && s.includes(v);
    case 'notContains':
      return s === null || !s.includes(v);
    case 'startsWith':
      return s !== null && s.startsWith(v);
    case 'endsWith':
      return s !== null && s.endsWith(v);
    case 'isSet':
      return s !== null && s !== '';
    default:
      return s === null || s === '';
  }
}

function inWindow(e: TestEvent, w: TimeWindow, now: Date): boolean {
  if (w.type === 'ever') return true;
  if (w.type === 'inTheLast') return e.createdAt.getTime() >= now.getTime() - w.days * day;
  return e.createdAt >= range(w.from).start && e.createdAt < range(w.to).end;
}

function likeMatch(url: string, pattern: string): boolean {
  const re = new RegExp(
    `^${lower(pattern)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[\\s\\S]*')}$`,
  );
  return re.test(lower(url));
}

function propertyMatches(e: TestEvent, p: ConditionOf<'event'>['properties'][number]): boolean {
  const raw = e.data[p.key];
  const s = raw === undefined || raw === null ? null : lower(String(raw));
  const v = lower(String(p.value ?? ''));
  switch (p.operator) {
    case 'equals':
      return s !== null && s === v;
    case 'notEquals':
      return s === null || s !== v;
    case 'contains':
      return s !== null && s.includes(v);
    case 'exists':
      return p.key in e.data;
  }
}

/** The people of `data` that a tree selects, by the same rules the compiler implements. */
export function evaluate(
  nodes: readonly ConditionNode[],
  data: DataSet,
  types: ReadonlyMap<string, string>,
  segments: ReadonlyMap<number, ConditionNode[]>,
  now: Date,
): Set<number> {
  const eventsOf = new Map<number, TestEvent[]>();
  for (const e of data.events) eventsOf.set(e.personId, [...(eventsOf.get(e.personId) ?? []), e]);

  const mentionsArchived = (list: readonly ConditionNode[]): boolean =>
    list.some((n) =>
      n.type === 'group' ? mentionsArchived(n.conditions) : n.type === 'status' && n.status === 'archived',
    );

  const matchesTree = (person: TestPerson, list: readonly ConditionNode[]): boolean =>
    (mentionsArchived(list) || !person.archived) && list.every((n) => matchesNode(person, n));

  const matchesNode = (person: TestPerson, node: ConditionNode): boolean => {
    if (node.type === 'group') {
      return node.operator === 'and'
        ? node.conditions.every((c) => matchesNode(person, c))
        : node.conditions.some((c) => matchesNode(person, c));
    }
    return matchesCondition(person, node);
  };

  const matchesCondition = (person: TestPerson, c: Condition): boolean => {
    const events = eventsOf.get(person.id) ?? [];
    switch (c.type) {
      case 'field':
        return field(person, c, types, now);
      case 'tag':
        return person.tags.includes(c.tag) === (c.operator === 'has');
      case 'event': {
        const n = events.filter(
          (e) =>
            e.type === 'track' &&
            e.name === c.name &&
            inWindow(e, c.window, now) &&
            c.properties.every((p) => propertyMatches(e, p)),
        ).length;
        const v = c.count.value;
        return c.count.operator === 'atLeast' ? n >= v : c.count.operator === 'atMost' ? n <= v : n === v;
      }
      case 'emailActivity': {
        const keys = { email: 'emailId', flow: 'flowId', broadcast: 'broadcastId' } as const;
        const found = events.some(
          (e) =>
            e.type === 'email' &&
            e.name === c.activity &&
            inWindow(e, c.window, now) &&
            (c.subject.type === 'any' || String(e.data[keys[c.subject.type]]) === String(c.subject.id)),
        );
        return found === c.performed;
      }
      case 'segment': {
        const inside =
          c.segmentId === archivedSegmentId
            ? person.archived
            : matchesTree(person, segments.get(c.segmentId)!);
        return inside === (c.operator === 'in');
      }
      case 'pageVisited': {
        const found = events.some(
          (e) =>
            e.type === 'page' &&
            e.url !== null &&
            inWindow(e, c.window, now) &&
            (c.match === 'equals'
              ? lower(e.url) === lower(c.url)
              : c.match === 'contains'
                ? lower(e.url).includes(lower(c.url))
                : c.match === 'startsWith'
                  ? lower(e.url).startsWith(lower(c.url))
                  : likeMatch(e.url, c.url)),
        );
        return found === c.performed;
      }
      case 'formSubmitted': {
        const found = events.some(
          (e) =>
            e.type === 'form' &&
            inWindow(e, c.window, now) &&
            (!c.form || (e.name !== null && lower(e.name) === lower(c.form))),
        );
        return found === c.performed;
      }
      case 'created':
        return compareDate(person.createdAt, c.operator, c.value, now);
      case 'status':
        return c.status === 'archived'
          ? person.archived
          : c.status === 'unsubscribed'
            ? person.unsubscribed
            : !person.unsubscribed;
    }
  };

  return new Set(data.people.filter((p) => matchesTree(p, nodes)).map((p) => p.id));
}
