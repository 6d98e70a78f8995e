import {
  dayOperators,
  operatorsByFieldType,
  valuelessOperators,
  type ConditionOf,
  type PersonField,
} from '@herald/contracts';
import { operatorLabels } from './condition-text.ts';

/** What the field condition editor decides, as plain functions: the choices it offers and the condition a choice makes. */

export type FieldCondition = ConditionOf<'field'>;

const groupTitles: Record<PersonField['type'], string> = {
  string: 'Text',
  number: 'Number',
  boolean: 'Yes / no',
  date: 'Date',
  enum: 'Choice',
};

/** The type of a field of the account; a field it does not have reads as text. */
export const fieldTypeOf = (fields: PersonField[], name: string): PersonField['type'] =>
  fields.find((f) => f.name === name)?.type ?? 'string';

/** The field select's choices, grouped by type in a fixed order, empty groups left out; tags have a condition of their own. */
export function fieldGroups(fields: PersonField[]) {
  const pickable = fields.filter((f) => f.name !== 'tags');
  return (['string', 'number', 'boolean', 'date', 'enum'] as const)
    .map((t) => ({
      group: groupTitles[t],
      items: pickable.filter((f) => f.type === t).map((f) => ({ value: f.name, label: f.title })),
    }))
    .filter((g) => g.items.length > 0);
}

/** The operator select's choices for a field type; a yes/no field reads "is" plus a switch, so isTrue stands for isFalse too. */
export function operatorChoices(type: PersonField['type']): { value: string; label: string }[] {
  const operators = operatorsByFieldType[type];
  return type === 'boolean'
    ? [
        { value: 'isTrue', label: 'is' },
        ...operators
          .filter((o) => o !== 'isTrue' && o !== 'isFalse')
          .map((o) => ({ value: o, label: operatorLabels[o] })),
      ]
    : operators.map((o) => ({ value: o, label: operatorLabels[o] }));
}

/**
 * The condition on another field: its operator stays when the new field's type has it, else the type's first; its
 * value stays only when the new field has the same type. Null for a field the account does not have.
 */
export function withField(
  condition: FieldCondition,
  fields: PersonField[],
  name: string | null,
): FieldCondition | null {
  const next = fields.find((f) => f.name === name);
  if (!next) return null;
  const type = fieldTypeOf(fields, condition.field);
  const nextOperators = operatorsByFieldType[next.type];
  const operator = nextOperators.includes(condition.operator) ? condition.operator : nextOperators[0]!;
  return {
    type: 'field',
    field: next.name,
    operator,
    ...(next.type === type && condition.value !== undefined ? { value: condition.value } : {}),
  };
}

/**
 * The condition with another operator of its field's type: the value stays unless the new operator takes none or
 * moves between a number of days and another value; a days operator without a kept value starts at 30. Null for an
 * operator the field's type does not have.
 */
export function withOperator(
  condition: FieldCondition,
  fields: PersonField[],
  operator: string | null,
): FieldCondition | null {
  const op = operatorsByFieldType[fieldTypeOf(fields, condition.field)].find((o) => o === operator);
  if (!op) return null;
  const keepsValue =
    !valuelessOperators.includes(op) &&
    dayOperators.includes(op) === dayOperators.includes(condition.operator);
  return {
    type: 'field',
    field: condition.field,
    operator: op,
    ...(keepsValue && condition.value !== undefined
      ? { value: condition.value }
      : dayOperators.includes(op)
        ? { value: 30 }
        : {}),
  };
}
