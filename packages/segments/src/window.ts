import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { TimeWindow } from '@herald/contracts';
import { daysFromNow, alwaysTrue, type CompileContext } from './context.ts';
import { dateRange, parseConditionDate } from './dates.ts';

/** SQL limiting `column` to a time window: ever, the last N days up to now, or between two dates (inclusive). */
export function windowFilter(
  column: RawBuilder<unknown>,
  window: TimeWindow,
  ctx: CompileContext,
): RawBuilder<SqlBool> {
  switch (window.type) {
    case 'ever':
      return alwaysTrue;
    case 'inTheLast':
      return sql<SqlBool>`${column} >= ${daysFromNow(ctx, -window.days)}`;
    case 'between': {
      const from = dateRange(window.from).start;
      const to = dateRange(window.to).end;
      return sql<SqlBool>`${column} >= ${from.toISOString()}::timestamptz and ${column} < ${to.toISOString()}::timestamptz`;
    }
  }
}

/** The message for a window whose dates are not valid, or null. */
export function validateWindow(window: TimeWindow): string | null {
  if (window.type !== 'between') return null;
  if (!parseConditionDate(window.from) || !parseConditionDate(window.to))
    return 'Dates are written YYYY-MM-DD.';
  if (dateRange(window.from).start > dateRange(window.to).start) return 'The window starts after it ends.';
  return null;
}

/** True when the window moves with time. */
export function isRelativeWindow(window: TimeWindow): boolean {
  return window.type === 'inTheLast';
}
