import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ConditionOf } from '@herald/contracts';
import type { ConditionCompiler } from '../context.ts';
import { hasEvent, wildcardToLike } from '../events.ts';
import { isRelativeWindow, validateWindow, windowFilter } from '../window.ts';

/** URLs compare without case; `pattern` matches the whole URL with `*` for any text. */
function urlFilter(condition: ConditionOf<'pageVisited'>): RawBuilder<SqlBool> {
  const url = condition.url;
  switch (condition.match) {
    case 'equals':
      return sql<SqlBool>`lower(e.url) = lower(${url}::text)`;
    case 'contains':
      return sql<SqlBool>`strpos(lower(e.url), lower(${url}::text)) > 0`;
    case 'startsWith':
      return sql<SqlBool>`starts_with(lower(e.url), lower(${url}::text))`;
    case 'pattern':
      return sql<SqlBool>`lower(e.url) like ${wildcardToLike(url)}::text`;
  }
}

/** A page view (event type page) whose URL matches, in a window; or none such. */
export const pageVisitedCompiler: ConditionCompiler<'pageVisited'> = {
  compile: (condition, { ctx }) => {
    const found = hasEvent(ctx, [sql<SqlBool>`e.type = 'page'`, urlFilter(condition), windowFilter(sql`e.created_at`, condition.window, ctx)]);
    return condition.performed ? found : sql<SqlBool>`not ${found}`;
  },
  validate: (condition) => validateWindow(condition.window),
  isTimeRelative: (condition) => isRelativeWindow(condition.window),
};
