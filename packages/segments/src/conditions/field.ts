import { sql, type RawBuilder, type SqlBool } from 'kysely';
import {
  dayOperators,
  operatorsByFieldType,
  segmentMessages,
  valuelessOperators,
  type ConditionOf,
  type PersonFieldType,
} from '@herald/contracts';
import {
  daysFromNow,
  fieldValue,
  nowParam,
  type CompileContext,
  type ConditionCompiler,
} from '../context.ts';
import { dateRange, parseConditionDate, parseDays } from '../dates.ts';
import { textMatch } from '../text-match.ts';

type FieldCondition = ConditionOf<'field'>;

/** Is set / is not set, which every field type has; any other operator matches no one. */
function presence(value: RawBuilder<unknown>, operator: string): RawBuilder<SqlBool> {
  if (operator === 'isSet') return sql<SqlBool>`${value} is not null`;
  if (operator === 'isNotSet') return sql<SqlBool>`${value} is null`;
  return sql<SqlBool>`false`;
}

/**
 * Text comparisons ignore case. "Not equals" and "does not contain" also match people who have no
 * value, and "is false" matches only a stored false (people without a value are "not set").
 */
function textCompare(value: RawBuilder<unknown>, condition: FieldCondition): RawBuilder<SqlBool> {
  switch (condition.operator) {
    case 'equals':
    case 'notEquals':
    case 'contains':
    case 'notContains':
    case 'startsWith':
    case 'endsWith':
      return textMatch(value, condition.operator, String(condition.value ?? ''));
    case 'isSet':
      return sql<SqlBool>`coalesce(${value}, '') <> ''`;
    case 'isNotSet':
      return sql<SqlBool>`coalesce(${value}, '') = ''`;
    default:
      return sql<SqlBool>`false`;
  }
}

function numberCompare(value: RawBuilder<unknown>, condition: FieldCondition): RawBuilder<SqlBool> {
  const v = Number(condition.value);
  switch (condition.operator) {
    case 'equals':
      return sql<SqlBool>`${value} = ${v}::numeric`;
    case 'notEquals':
      return sql<SqlBool>`(${value} is null or ${value} <> ${v}::numeric)`;
    case 'greaterThan':
      return sql<SqlBool>`${value} > ${v}::numeric`;
    case 'lessThan':
      return sql<SqlBool>`${value} < ${v}::numeric`;
    default:
      return presence(value, condition.operator);
  }
}

function booleanCompare(value: RawBuilder<unknown>, condition: FieldCondition): RawBuilder<SqlBool> {
  switch (condition.operator) {
    case 'isTrue':
      return sql<SqlBool>`${value} is true`;
    case 'isFalse':
      return sql<SqlBool>`${value} is false`;
    default:
      return presence(value, condition.operator);
  }
}

/** Date operators on any timestamptz expression (also used by the created condition). */
export function dateCompare(
  value: RawBuilder<unknown>,
  operator: string,
  raw: unknown,
  ctx: CompileContext,
): RawBuilder<SqlBool> {
  switch (operator) {
    case 'before':
      return sql<SqlBool>`${value} < ${dateRange(String(raw)).start.toISOString()}::timestamptz`;
    case 'after':
      return sql<SqlBool>`${value} >= ${dateRange(String(raw)).end.toISOString()}::timestamptz`;
    case 'on': {
      const { start, end } = dateRange(String(raw));
      return sql<SqlBool>`(${value} >= ${start.toISOString()}::timestamptz and ${value} < ${end.toISOString()}::timestamptz)`;
    }
    case 'withinLast':
      return sql<SqlBool>`(${value} >= ${daysFromNow(ctx, -parseDays(raw)!)} and ${value} <= ${nowParam(ctx)})`;
    case 'withinNext':
      return sql<SqlBool>`(${value} >= ${nowParam(ctx)} and ${value} <= ${daysFromNow(ctx, parseDays(raw)!)})`;
    case 'moreThanAgo':
      return sql<SqlBool>`${value} < ${daysFromNow(ctx, -parseDays(raw)!)}`;
    case 'anniversary':
      return sql<SqlBool>`to_char(${value} at time zone 'UTC', 'MM-DD') = ${ctx.now.toISOString().slice(5, 10)}::text`;
    default:
      return presence(value, operator);
  }
}

const compareByType: Record<
  PersonFieldType,
  (value: RawBuilder<unknown>, condition: FieldCondition, ctx: CompileContext) => RawBuilder<SqlBool>
> = {
  string: textCompare,
  enum: textCompare,
  number: numberCompare,
  boolean: booleanCompare,
  date: (value, condition, ctx) => dateCompare(value, condition.operator, condition.value, ctx),
};

/** The message for a date operator whose value is missing or malformed, or null. */
export function validateDateValue(operator: string, value: unknown): string | null {
  if (valuelessOperators.includes(operator as never)) return null;
  if (dayOperators.includes(operator as never))
    return parseDays(value) === null ? 'Enter a whole number of days (0 to 36500).' : null;
  if (value === undefined || value === '') return segmentMessages.valueRequired(operator);
  return parseConditionDate(value) ? null : 'Dates are written YYYY-MM-DD.';
}

/** A person field compared with a value, by the field's type. */
export const fieldCompiler: ConditionCompiler<'field'> = {
  // A missing value makes a comparison null; coalesce keeps every condition true or false, so NOT
  // (in "not in segment") and OR behave as a marketer reads them.
  compile: (condition, { ctx }) => {
    const type = ctx.fieldTypes.get(condition.field)!;
    return sql<SqlBool>`coalesce(${compareByType[type](fieldValue(condition.field, type), condition, ctx)}, false)`;
  },
  validate: (condition, ctx) => {
    const type = ctx.fieldTypes.get(condition.field);
    if (!type) return segmentMessages.unknownField(condition.field);
    if (!operatorsByFieldType[type].includes(condition.operator))
      return segmentMessages.operatorNotForType(condition.operator, type);
    if (valuelessOperators.includes(condition.operator)) return null;
    const value = condition.value;
    if (type === 'date') return validateDateValue(condition.operator, value);
    if (value === undefined || value === '') return segmentMessages.valueRequired(condition.operator);
    if (
      type === 'number' &&
      (typeof value === 'boolean' || !Number.isFinite(Number(value)) || String(value).trim() === '')
    )
      return segmentMessages.valueNotOfType(condition.field, 'number');
    return null;
  },
  isTimeRelative: (condition) =>
    ['withinLast', 'withinNext', 'moreThanAgo', 'anniversary'].includes(condition.operator),
};
