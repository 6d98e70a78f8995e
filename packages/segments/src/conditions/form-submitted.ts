import { sql, type SqlBool } from 'kysely';
import type { ConditionCompiler } from '../context.ts';
import { eventSetFilter } from '../event-sets.ts';
import { hasEvent } from '../events.ts';
import { isRelativeWindow, validateWindow, windowFilter } from '../window.ts';

/** A form submission (event type form), of one form by name (without case) or of any form. */
export const formSubmittedCompiler: ConditionCompiler<'formSubmitted'> = {
  compile: (condition, { ctx }) => {
    const fromSet = eventSetFilter(ctx, condition);
    if (fromSet) return fromSet;
    const found = hasEvent(ctx, [
      sql<SqlBool>`e.type = 'form'`,
      condition.form ? sql<SqlBool>`lower(e.name) = lower(${condition.form}::text)` : sql<SqlBool>`true`,
      windowFilter(sql`e.created_at`, condition.window, ctx),
    ]);
    return condition.performed ? found : sql<SqlBool>`not ${found}`;
  },
  validate: (condition) => validateWindow(condition.window),
  isTimeRelative: (condition) => isRelativeWindow(condition.window),
};
