import { sql, type SqlBool } from 'kysely';
import type { ConditionCompiler } from '../context.ts';

/** Subscribed, unsubscribed or archived. */
export const statusCompiler: ConditionCompiler<'status'> = {
  compile: (condition) => {
    switch (condition.status) {
      case 'unsubscribed':
        return sql<SqlBool>`p.unsubscribed_at is not null`;
      case 'subscribed':
        return sql<SqlBool>`p.unsubscribed_at is null`;
      case 'archived':
        return sql<SqlBool>`p.archived_at is not null`;
    }
  },
  validate: () => null,
  isTimeRelative: () => false,
};
