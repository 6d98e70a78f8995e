import { sql, type RawBuilder, type SqlBool } from 'kysely';

export type TextOperator = 'equals' | 'notEquals' | 'contains' | 'notContains' | 'startsWith' | 'endsWith';

/**
 * Compare a text expression with a value, ignoring case. The negative operators also match a missing
 * value (NULL), as a marketer reads "is not" and "does not contain".
 */
export function textMatch(
  value: RawBuilder<unknown>,
  operator: TextOperator,
  text: string,
): RawBuilder<SqlBool> {
  switch (operator) {
    case 'equals':
      return sql<SqlBool>`lower(${value}) = lower(${text}::text)`;
    case 'notEquals':
      return sql<SqlBool>`(${value} is null or lower(${value}) <> lower(${text}::text))`;
    case 'contains':
      return sql<SqlBool>`strpos(lower(${value}), lower(${text}::text)) > 0`;
    case 'notContains':
      return sql<SqlBool>`(${value} is null or strpos(lower(${value}), lower(${text}::text)) = 0)`;
    case 'startsWith':
      return sql<SqlBool>`starts_with(lower(${value}), lower(${text}::text))`;
    case 'endsWith':
      return sql<SqlBool>`right(lower(${value}), char_length(${text}::text)) = lower(${text}::text)`;
  }
}
