import { dayOperators, valuelessOperators, type PersonField } from '@herald/contracts';
import { Group, NumberInput, Select, Switch, TextInput } from '@mantine/core';
import { DateInput } from './date-input.tsx';
import {
  fieldGroups,
  operatorChoices,
  withField,
  withOperator,
  type FieldCondition,
} from './field-condition.ts';

/** A person field, an operator that fits its type, and a value input of that type. */
export function FieldConditionInput({
  condition,
  fields,
  onChange,
}: {
  condition: FieldCondition;
  fields: PersonField[];
  onChange: (c: FieldCondition) => void;
}) {
  const field = fields.find((f) => f.name === condition.field);
  const type = field?.type ?? 'string';
  const groups = fieldGroups(fields);
  const changeField = (name: string | null) => {
    const next = withField(condition, fields, name);
    if (next) onChange(next);
  };
  const changeOperator = (operator: string | null) => {
    const next = withOperator(condition, fields, operator);
    if (next) onChange(next);
  };
  const value = condition.value;
  // A yes/no field reads "is" plus a switch; the switch picks isTrue or isFalse.
  const isBooleanValue =
    type === 'boolean' && (condition.operator === 'isTrue' || condition.operator === 'isFalse');
  const operatorData = operatorChoices(type);
  const operatorValue = condition.operator === 'isFalse' ? 'isTrue' : condition.operator;
  let valueInput = null;
  if (isBooleanValue) {
    valueInput = (
      <Switch
        mt={8}
        label={condition.operator === 'isTrue' ? 'Yes' : 'No'}
        aria-label="Value"
        checked={condition.operator === 'isTrue'}
        onChange={(e) =>
          onChange({
            type: 'field',
            field: condition.field,
            operator: e.currentTarget.checked ? 'isTrue' : 'isFalse',
          })
        }
      />
    );
  } else if (!valuelessOperators.includes(condition.operator)) {
    if (dayOperators.includes(condition.operator)) {
      valueInput = (
        <NumberInput
          aria-label="Days"
          w={120}
          min={0}
          max={36500}
          suffix={condition.operator === 'moreThanAgo' ? ' days ago' : ' days'}
          value={typeof value === 'number' ? value : 30}
          onChange={(n) => onChange({ ...condition, value: Number(n) || 0 })}
        />
      );
    } else if (type === 'number') {
      valueInput = (
        <NumberInput
          aria-label="Value"
          w={140}
          value={typeof value === 'number' ? value : ''}
          onChange={(n) => onChange({ ...condition, value: n === '' ? '' : Number(n) })}
        />
      );
    } else if (type === 'date') {
      valueInput = (
        <DateInput
          label="Date"
          value={typeof value === 'string' ? value : ''}
          onChange={(date) => onChange({ ...condition, value: date })}
        />
      );
    } else if (type === 'enum' && field?.enum) {
      valueInput = (
        <Select
          aria-label="Value"
          w={180}
          data={field.enum.map((v, i) => ({ value: v, label: field.enumNames?.[i] ?? v }))}
          value={typeof value === 'string' ? value : null}
          onChange={(v) => onChange({ ...condition, value: v ?? '' })}
        />
      );
    } else {
      valueInput = (
        <TextInput
          aria-label="Value"
          w={200}
          maxLength={500}
          value={value === undefined ? '' : String(value)}
          onChange={(e) => onChange({ ...condition, value: e.currentTarget.value })}
        />
      );
    }
  }
  return (
    <Group gap="xs" wrap="wrap">
      <Select
        aria-label="Field"
        w={180}
        searchable
        allowDeselect={false}
        data={groups}
        value={condition.field}
        onChange={changeField}
      />
      <Select
        aria-label="Operator"
        w={190}
        allowDeselect={false}
        data={operatorData}
        value={operatorValue}
        onChange={changeOperator}
      />
      {valueInput}
    </Group>
  );
}
