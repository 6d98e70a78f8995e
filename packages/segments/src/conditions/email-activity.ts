import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ConditionOf } from '@herald/contracts';
import type { ConditionCompiler } from '../context.ts';
import { eventSetFilter } from '../event-sets.ts';
import { hasEvent } from '../events.ts';
import { isRelativeWindow, validateWindow, windowFilter } from '../window.ts';

const subjectKeys = { email: 'emailId', flow: 'flowId', broadcast: 'broadcastId' } as const;

function subjectFilter(subject: ConditionOf<'emailActivity'>['subject']): RawBuilder<SqlBool> {
  if (subject.type === 'any') return sql<SqlBool>`true`;
  return sql<SqlBool>`(e.data ->> ${subjectKeys[subject.type]}::text) = ${String(subject.id)}::text`;
}

/** Email activity (events of type email named sent/opened/...), for any email, one email, a flow or a broadcast. */
export const emailActivityCompiler: ConditionCompiler<'emailActivity'> = {
  compile: (condition, { ctx }) => {
    const fromSet = eventSetFilter(ctx, condition);
    if (fromSet) return fromSet;
    const found = hasEvent(ctx, [
      sql<SqlBool>`e.type = 'email'`,
      sql<SqlBool>`e.name = ${condition.activity}::text`,
      subjectFilter(condition.subject),
      windowFilter(sql`e.created_at`, condition.window, ctx),
    ]);
    return condition.performed ? found : sql<SqlBool>`not ${found}`;
  },
  validate: (condition) => validateWindow(condition.window),
  isTimeRelative: (condition) => isRelativeWindow(condition.window),
};
