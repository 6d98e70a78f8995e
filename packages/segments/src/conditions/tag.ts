import { sql, type SqlBool } from 'kysely';
import type { ConditionCompiler } from '../context.ts';

/** Has or has not a tag (exact tag text). */
export const tagCompiler: ConditionCompiler<'tag'> = {
  compile: (condition) =>
    condition.operator === 'has'
      ? sql<SqlBool>`p.tags @> array[${condition.tag}::text]`
      : sql<SqlBool>`not (p.tags @> array[${condition.tag}::text])`,
  validate: () => null,
  isTimeRelative: () => false,
};
