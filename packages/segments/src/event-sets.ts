import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ConditionNode, ConditionOf, TimeWindow } from '@herald/contracts';
import type { CompileContext, EventSet } from './context.ts';

export type { EventSet };
import { dateRange } from './dates.ts';
import { wildcardToLike } from './events.ts';
import type { TextOperator } from './text-match.ts';

/**
 * Conditions on events when events live in ClickHouse (docs/segments.md, "Segments on ClickHouse"): ClickHouse
 * answers each event condition with a set of person ids, and the PostgreSQL filter reads the set instead of the
 * events table. The rest of the tree (fields, tags, status, created, references) stays in PostgreSQL.
 */
export type EventConditionType = 'event' | 'emailActivity' | 'pageVisited' | 'formSubmitted';
export type EventCondition = ConditionOf<EventConditionType>;

/** A ClickHouse query answering one event condition: rows of `person_id`, and whether the answer is the complement. */
export interface EventSetQuery {
  /** `null` when the answer needs no query: `complement` alone says everyone (true) or nobody (false). */
  query: string | null;
  params: Record<string, string | number>;
  complement: boolean;
}

const eventConditionTypes: ReadonlySet<string> = new Set<EventConditionType>([
  'event',
  'emailActivity',
  'pageVisited',
  'formSubmitted',
]);

export function isEventCondition(node: ConditionNode): node is EventCondition {
  return eventConditionTypes.has(node.type);
}

/** A condition's key in a map of sets: the same condition anywhere in a tree is asked once. */
export function eventConditionKey(condition: EventCondition): string {
  const sortKeys = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sortKeys)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, v]) => [k, sortKeys(v)]),
          )
        : value;
  return JSON.stringify(sortKeys(condition));
}

/** Every event condition a tree reads, through groups and the stored segments it refers to, each once. */
export function eventConditionsOf(nodes: readonly ConditionNode[], ctx: CompileContext): EventCondition[] {
  const found = new Map<string, EventCondition>();
  const seen = new Set<number>();
  const walk = (list: readonly ConditionNode[]) => {
    for (const node of list) {
      if (node.type === 'group') walk(node.conditions);
      else if (node.type === 'segment') {
        const inner = ctx.segments.get(node.segmentId);
        if (inner && !seen.has(node.segmentId)) {
          seen.add(node.segmentId);
          walk(inner);
        }
      } else if (isEventCondition(node)) found.set(eventConditionKey(node), node);
    }
  };
  walk(nodes);
  return [...found.values()];
}

/** The PostgreSQL filter for an event condition answered by a set (over people aliased `p`). */
export function eventSetFilter(ctx: CompileContext, condition: EventCondition): RawBuilder<SqlBool> | null {
  if (!ctx.eventSets) return null;
  const set = ctx.eventSets.get(eventConditionKey(condition));
  if (!set)
    throw new Error(`No answer from the event store for the condition ${eventConditionKey(condition)}`);
  if (set.ids.length === 0) return set.complement ? sql<SqlBool>`true` : sql<SqlBool>`false`;
  const listed = sql<SqlBool>`p.id = any(${`{${set.ids.join(',')}}`}::bigint[])`;
  return set.complement ? sql<SqlBool>`not ${listed}` : listed;
}

/** Builds one ClickHouse query with named, typed parameters (`{p0:String}`): no value is ever spliced in. */
class QueryBuilder {
  readonly params: Record<string, string | number> = {};
  private next = 0;
  param(value: string | number, type: 'String' | 'Int64' | 'UInt64'): string {
    const name = `p${this.next++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }
}

/**
 * ClickHouse's text of a property of the `data` column as PostgreSQL's `data ->> key` reads it: a string's value,
 * another value's JSON text, NULL for a missing key or a JSON null. `key` is a ClickHouse expression: a query
 * parameter, or a quoted literal where none can be (a table's or a view's definition).
 */
export function jsonTextCh(key: string): string {
  return `multiIf(JSONType(data, ${key}) = 'String', JSONExtractString(data, ${key}), JSONType(data, ${key}) = 'Null', NULL, JSONExtractRaw(data, ${key}))`;
}

function propertyText(q: QueryBuilder, key: string): string {
  return jsonTextCh(q.param(key, 'String'));
}

/** textMatch (text-match.ts) in ClickHouse: without case; the negative operators also match a missing value. */
function textMatchCh(q: QueryBuilder, value: string, operator: TextOperator, text: string): string {
  const t = `lowerUTF8(${q.param(text, 'String')})`;
  const v = `lowerUTF8(${value})`;
  switch (operator) {
    case 'equals':
      return `ifNull(${v} = ${t}, 0)`;
    case 'notEquals':
      return `(${value} IS NULL OR ${v} != ${t})`;
    case 'contains':
      return `ifNull(positionUTF8(${v}, ${t}) > 0, 0)`;
    case 'notContains':
      return `(${value} IS NULL OR positionUTF8(${v}, ${t}) = 0)`;
    case 'startsWith':
      return `ifNull(startsWith(${v}, ${t}), 0)`;
    case 'endsWith':
      return `ifNull(endsWith(${v}, ${t}), 0)`;
  }
}

/** windowFilter (window.ts) in ClickHouse, on instants in milliseconds. */
function windowCh(q: QueryBuilder, window: TimeWindow, ctx: CompileContext): string | null {
  const at = (ms: number) => `fromUnixTimestamp64Milli(toInt64(${q.param(ms, 'Int64')}), 'UTC')`;
  switch (window.type) {
    case 'ever':
      return null;
    case 'inTheLast':
      return `created_at >= ${at(ctx.now.getTime() - window.days * 86_400_000)}`;
    case 'between':
      return `created_at >= ${at(dateRange(window.from).start.getTime())} AND created_at < ${at(dateRange(window.to).end.getTime())}`;
  }
}

function eventFilters(q: QueryBuilder, condition: EventCondition, ctx: CompileContext): string[] {
  const filters: (string | null)[] = [];
  switch (condition.type) {
    case 'event':
      filters.push(`type = 'track'`, `name = ${q.param(condition.name, 'String')}`);
      for (const p of condition.properties)
        filters.push(
          p.operator === 'exists'
            ? `JSONHas(data, ${q.param(p.key, 'String')})`
            : textMatchCh(q, propertyText(q, p.key), p.operator, String(p.value ?? '')),
        );
      break;
    case 'emailActivity': {
      filters.push(`type = 'email'`, `name = ${q.param(condition.activity, 'String')}`);
      const keys = { email: 'emailId', flow: 'flowId', broadcast: 'broadcastId' } as const;
      if (condition.subject.type !== 'any')
        filters.push(
          `ifNull(${propertyText(q, keys[condition.subject.type])} = ${q.param(String(condition.subject.id), 'String')}, 0)`,
        );
      break;
    }
    case 'pageVisited':
      filters.push(
        `type = 'page'`,
        condition.match === 'pattern'
          ? `ifNull(lowerUTF8(url) LIKE ${q.param(wildcardToLike(condition.url), 'String')}, 0)`
          : textMatchCh(q, 'url', condition.match, condition.url),
      );
      break;
    case 'formSubmitted':
      filters.push(`type = 'form'`);
      if (condition.form)
        filters.push(`ifNull(lowerUTF8(name) = lowerUTF8(${q.param(condition.form, 'String')}), 0)`);
      break;
  }
  filters.push(windowCh(q, condition.window, ctx));
  return filters.filter((f): f is string => f !== null);
}

/**
 * The ClickHouse query answering one event condition for the account (`table`: the events table's name, the
 * distributed one on a cluster). People are listed by how many matching events they have; "at most", "exactly 0"
 * and "did not" are answered as the complement of the people with more.
 */
export function eventSetQuery(
  condition: EventCondition,
  ctx: CompileContext,
  table = 'events',
): EventSetQuery {
  const q = new QueryBuilder();
  const account = q.param(ctx.accountId, 'UInt64');
  const where = [`account_id = ${account}`, ...eventFilters(q, condition, ctx)].join(' AND ');
  const having = (test: string) =>
    `SELECT person_id FROM ${table} WHERE ${where} GROUP BY person_id HAVING ${test}`;
  const anyEvent = `SELECT DISTINCT person_id FROM ${table} WHERE ${where}`;
  if (condition.type !== 'event')
    return { query: anyEvent, params: q.params, complement: !condition.performed };
  const { operator, value } = condition.count;
  if (operator === 'atLeast') {
    if (value <= 0) return { query: null, params: {}, complement: true };
    return value === 1
      ? { query: anyEvent, params: q.params, complement: false }
      : { query: having(`count() >= ${q.param(value, 'Int64')}`), params: q.params, complement: false };
  }
  if (operator === 'atMost')
    return { query: having(`count() > ${q.param(value, 'Int64')}`), params: q.params, complement: true };
  if (value === 0) return { query: anyEvent, params: q.params, complement: true };
  return { query: having(`count() = ${q.param(value, 'Int64')}`), params: q.params, complement: false };
}
