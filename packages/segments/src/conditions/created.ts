import { sql } from 'kysely';
import type { ConditionCompiler } from '../context.ts';
import { dateCompare, validateDateValue } from './field.ts';

/** When the person was added: before, after or on a date, within the last N days, more than N days ago. */
export const createdCompiler: ConditionCompiler<'created'> = {
  compile: (condition, { ctx }) => dateCompare(sql`p.created_at`, condition.operator, condition.value, ctx),
  validate: (condition) => validateDateValue(condition.operator, condition.value),
  isTimeRelative: (condition) => condition.operator === 'withinLast' || condition.operator === 'moreThanAgo',
};
