import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ConditionNode, ConditionOf, ConditionType, PersonFieldType } from '@herald/contracts';

/**
 * One event condition's answer from the event store (event-sets.ts): the people it is true for are `ids`
 * (`complement: false`) or everyone but `ids` (`complement: true`), so "did not open" and "at most 2 times" never
 * list the people without events.
 */
export interface EventSet {
  ids: readonly number[];
  complement: boolean;
}

/** What the compiler needs to know about the account; no I/O, so compiling is pure and testable. */
export interface CompileContext {
  accountId: number;
  /** The instant "in the last N days" and "anniversary" are measured from. */
  now: Date;
  /** Type of every field by API name: first-class (email, firstName, …) and the account's custom fields. */
  fieldTypes: ReadonlyMap<string, PersonFieldType>;
  /** Conditions of the account's stored segments by id (automatic ones already expanded). */
  segments: ReadonlyMap<number, ConditionNode[]>;
  /**
   * Set when events live in ClickHouse: the answer to each event condition of the tree, by eventConditionKey
   * (event-sets.ts). Unset: event conditions read PostgreSQL's events table.
   */
  eventSets?: ReadonlyMap<string, EventSet>;
}

/** The compile state one condition sees: the context and a way to compile a referenced segment. */
export interface CompileState {
  ctx: CompileContext;
  /** Ids of the segments being expanded, innermost last (cycle guard). */
  expanding: readonly number[];
  /** Compile a stored segment's whole filter (archived rule included) over the same person `p`. */
  segmentFilter(id: number): RawBuilder<SqlBool>;
}

/** One condition type: its SQL, its checks against the account, and whether time alone changes it. */
export interface ConditionCompiler<T extends ConditionType> {
  compile(condition: ConditionOf<T>, state: CompileState): RawBuilder<SqlBool>;
  /** The first problem as the message a user sees, or null. */
  validate(condition: ConditionOf<T>, ctx: CompileContext): string | null;
  isTimeRelative(condition: ConditionOf<T>): boolean;
}

/** First-class person fields: their type and the SQL that reads them. */
const firstClassColumns: Record<string, { type: PersonFieldType; sql: RawBuilder<unknown> }> = {
  email: { type: 'string', sql: sql`p.email` },
  firstName: { type: 'string', sql: sql`p.first_name` },
  lastName: { type: 'string', sql: sql`p.last_name` },
  phone: { type: 'string', sql: sql`p.phone` },
  company: { type: 'string', sql: sql`p.company` },
  website: { type: 'string', sql: sql`p.website` },
  userId: { type: 'string', sql: sql`p.external_id` },
  unsubscribeReason: { type: 'string', sql: sql`p.unsubscribe_reason` },
  createdAt: { type: 'date', sql: sql`p.created_at` },
  updatedAt: { type: 'date', sql: sql`p.updated_at` },
  unsubscribed: { type: 'boolean', sql: sql`(p.unsubscribed_at is not null)` },
};

/** Field types of the first-class fields (helper for building CompileContext). */
export const firstClassFieldTypes: ReadonlyMap<string, PersonFieldType> = new Map(
  Object.entries(firstClassColumns).map(([name, c]) => [name, c.type]),
);

/**
 * The SQL value of a field, typed: first-class fields read their column; custom fields read the JSONB
 * key (a bound parameter) and cast it so a stored value of another type reads as null, never an error.
 */
export function fieldValue(name: string, type: PersonFieldType): RawBuilder<unknown> {
  const column = firstClassColumns[name];
  if (column) return column.sql;
  switch (type) {
    case 'number':
      return sql`(case when jsonb_typeof(p.fields -> ${name}::text) = 'number' then (p.fields ->> ${name}::text)::numeric end)`;
    case 'boolean':
      return sql`(case when jsonb_typeof(p.fields -> ${name}::text) = 'boolean' then (p.fields ->> ${name}::text)::boolean end)`;
    case 'date':
      return sql`herald_to_timestamptz(p.fields ->> ${name}::text)`;
    default:
      return sql`(p.fields ->> ${name}::text)`;
  }
}

/** `now` as a bound timestamptz. */
export function nowParam(ctx: CompileContext): RawBuilder<Date> {
  return sql<Date>`${ctx.now.toISOString()}::timestamptz`;
}

/** `now` minus or plus whole days, as a bound timestamptz. */
export function daysFromNow(ctx: CompileContext, days: number): RawBuilder<Date> {
  return sql<Date>`${new Date(ctx.now.getTime() + days * 86_400_000).toISOString()}::timestamptz`;
}

export const alwaysTrue = sql<SqlBool>`true`;
export const alwaysFalse = sql<SqlBool>`false`;
