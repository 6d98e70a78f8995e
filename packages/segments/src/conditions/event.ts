import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ConditionOf } from '@herald/contracts';
import type { ConditionCompiler } from '../context.ts';
import { countEvents } from '../events.ts';
import { eventSetFilter } from '../event-sets.ts';
import { textMatch } from '../text-match.ts';
import { isRelativeWindow, validateWindow, windowFilter } from '../window.ts';

/** A property filter on the event's data; text compared without case, numbers and booleans by their text. */
function propertyFilter(filter: ConditionOf<'event'>['properties'][number]): RawBuilder<SqlBool> {
  if (filter.operator === 'exists') return sql<SqlBool>`jsonb_exists(e.data, ${filter.key}::text)`;
  return textMatch(sql`(e.data ->> ${filter.key}::text)`, filter.operator, String(filter.value ?? ''));
}

/** A tracked event (type track) by name: how many times, when, with which properties. */
export const eventCompiler: ConditionCompiler<'event'> = {
  compile: (condition, { ctx }) =>
    eventSetFilter(ctx, condition) ??
    countEvents(
      ctx,
      [
        sql<SqlBool>`e.type = 'track'`,
        sql<SqlBool>`e.name = ${condition.name}::text`,
        windowFilter(sql`e.created_at`, condition.window, ctx),
        ...condition.properties.map(propertyFilter),
      ],
      condition.count.operator,
      condition.count.value,
    ),
  validate: (condition) => {
    for (const p of condition.properties)
      if (p.operator !== 'exists' && (p.value === undefined || p.value === ''))
        return `The property filter on ${p.key} needs a value.`;
    return validateWindow(condition.window);
  },
  isTimeRelative: (condition) => isRelativeWindow(condition.window),
};
