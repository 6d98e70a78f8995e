import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { CompileContext } from './context.ts';

/**
 * The person's events that pass `filters`: every event subquery starts from the account and the
 * person, which the (account_id, person_id, created_at) index serves.
 */
function personEvents(ctx: CompileContext, filters: RawBuilder<SqlBool>[]): RawBuilder<unknown> {
  const where = sql.join(
    [sql`e.account_id = ${ctx.accountId}::bigint`, sql`e.person_id = p.id`, ...filters],
    sql` and `,
  );
  return sql`from events e where ${where}`;
}

/** True when the person has at least one such event. */
export function hasEvent(ctx: CompileContext, filters: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 ${personEvents(ctx, filters)})`;
}

/** Compare how many such events the person has; counting stops one past the number that decides. */
export function countEvents(
  ctx: CompileContext,
  filters: RawBuilder<SqlBool>[],
  operator: 'atLeast' | 'atMost' | 'exactly',
  value: number,
): RawBuilder<SqlBool> {
  if (operator === 'atLeast') {
    if (value <= 0) return sql<SqlBool>`true`;
    if (value === 1) return hasEvent(ctx, filters);
    return sql<SqlBool>`(select count(*) from (select 1 ${personEvents(ctx, filters)} limit ${value}::int) c) >= ${value}::int`;
  }
  if (value === 0) return sql<SqlBool>`not ${hasEvent(ctx, filters)}`;
  const counted = sql`(select count(*) from (select 1 ${personEvents(ctx, filters)} limit ${value + 1}::int) c)`;
  return operator === 'atMost'
    ? sql<SqlBool>`${counted} <= ${value}::int`
    : sql<SqlBool>`${counted} = ${value}::int`;
}

/** LIKE pattern for a `*` wildcard pattern, with LIKE's own characters taken literally. */
export function wildcardToLike(pattern: string): string {
  return pattern
    .toLowerCase()
    .replace(/[\\%_]/g, (c) => `\\${c}`)
    .replace(/\*/g, '%');
}
