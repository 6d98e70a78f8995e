import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ConditionOf } from '@herald/contracts';
import type { ConditionCompiler } from '../context.ts';
import { eventSetFilter } from '../event-sets.ts';
import { hasEvent, wildcardToLike } from '../events.ts';
import { textMatch } from '../text-match.ts';
import { isRelativeWindow, validateWindow, windowFilter } from '../window.ts';

/** URLs compare without case; `pattern` matches the whole URL with `*` for any text. */
function urlFilter(condition: ConditionOf<'pageVisited'>): RawBuilder<SqlBool> {
  if (condition.match === 'pattern')
    return sql<SqlBool>`lower(e.url) like ${wildcardToLike(condition.url)}::text`;
  return textMatch(sql`e.url`, condition.match, condition.url);
}

/** A page view (event type page) whose URL matches, in a window; or none such. */
export const pageVisitedCompiler: ConditionCompiler<'pageVisited'> = {
  compile: (condition, { ctx }) => {
    const fromSet = eventSetFilter(ctx, condition);
    if (fromSet) return fromSet;
    const found = hasEvent(ctx, [
      sql<SqlBool>`e.type = 'page'`,
      urlFilter(condition),
      windowFilter(sql`e.created_at`, condition.window, ctx),
    ]);
    return condition.performed ? found : sql<SqlBool>`not ${found}`;
  },
  validate: (condition) => validateWindow(condition.window),
  isTimeRelative: (condition) => isRelativeWindow(condition.window),
};
