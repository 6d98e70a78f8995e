import type { PersonField } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import {
  fieldGroups,
  fieldTypeOf,
  operatorChoices,
  withField,
  withOperator,
  type FieldCondition,
} from './field-condition.ts';
import { personField } from '../../test/fixtures.ts';

const fields: PersonField[] = [
  personField('email', 'string', 'Email'),
  personField('age', 'number', 'Age'),
  personField('vip', 'boolean', 'VIP'),
  personField('birthday', 'date', 'Birthday'),
  personField('signedUp', 'date', 'Signed up'),
  personField('city', 'string', 'City'),
  personField('tags', 'string', 'Tags'),
];
const on = (
  field: string,
  operator: FieldCondition['operator'],
  value?: FieldCondition['value'],
): FieldCondition => ({ type: 'field', field, operator, ...(value === undefined ? {} : { value }) });

describe('the field choices', () => {
  it('group the fields by type in a fixed order, without tags or empty groups', () => {
    expect(fieldGroups(fields)).toEqual([
      {
        group: 'Text',
        items: [
          { value: 'email', label: 'Email' },
          { value: 'city', label: 'City' },
        ],
      },
      { group: 'Number', items: [{ value: 'age', label: 'Age' }] },
      { group: 'Yes / no', items: [{ value: 'vip', label: 'VIP' }] },
      {
        group: 'Date',
        items: [
          { value: 'birthday', label: 'Birthday' },
          { value: 'signedUp', label: 'Signed up' },
        ],
      },
    ]);
  });

  it('read a field the account does not have as text', () => {
    expect(fieldTypeOf(fields, 'age')).toBe('number');
    expect(fieldTypeOf(fields, 'gone')).toBe('string');
  });
});

describe('the operators of a field type', () => {
  it('are the ones the server accepts for it, in words', () => {
    expect(operatorChoices('number').map((o) => `${o.value}:${o.label}`)).toEqual([
      'equals:is',
      'notEquals:is not',
      'greaterThan:is greater than',
      'lessThan:is less than',
      'isSet:is set',
      'isNotSet:is not set',
    ]);
    expect(operatorChoices('string').map((o) => o.value)).toEqual([
      'equals',
      'notEquals',
      'contains',
      'notContains',
      'startsWith',
      'endsWith',
      'isSet',
      'isNotSet',
    ]);
    expect(operatorChoices('date').map((o) => o.label)).toContain('is within the last');
  });

  it('read "is" for a yes/no field, whose switch picks true or false', () => {
    expect(operatorChoices('boolean')).toEqual([
      { value: 'isTrue', label: 'is' },
      { value: 'isSet', label: 'is set' },
      { value: 'isNotSet', label: 'is not set' },
    ]);
  });
});

describe('choosing another field', () => {
  it('keeps the operator and the value for a field of the same type', () => {
    expect(withField(on('email', 'contains', 'gmail'), fields, 'city')).toEqual(
      on('city', 'contains', 'gmail'),
    );
  });

  it("takes the new type's first operator when the old one does not fit, and drops the value", () => {
    expect(withField(on('email', 'contains', 'gmail'), fields, 'age')).toEqual(on('age', 'equals'));
    expect(withField(on('email', 'contains', 'gmail'), fields, 'vip')).toEqual(on('vip', 'isTrue'));
    expect(withField(on('age', 'greaterThan', 30), fields, 'birthday')).toEqual(on('birthday', 'before'));
  });

  it('keeps an operator both types have, but not a value of the other type', () => {
    expect(withField(on('email', 'equals', 'a@b.c'), fields, 'age')).toEqual(on('age', 'equals'));
    expect(withField(on('email', 'isSet'), fields, 'birthday')).toEqual(on('birthday', 'isSet'));
  });

  it('ignores a field the account does not have', () => {
    expect(withField(on('email', 'contains', 'x'), fields, 'gone')).toBeNull();
    expect(withField(on('email', 'contains', 'x'), fields, null)).toBeNull();
  });
});

describe('choosing another operator', () => {
  it('keeps the value between operators that take the same kind of value', () => {
    expect(withOperator(on('email', 'contains', 'gmail'), fields, 'startsWith')).toEqual(
      on('email', 'startsWith', 'gmail'),
    );
    expect(withOperator(on('birthday', 'withinLast', 14), fields, 'moreThanAgo')).toEqual(
      on('birthday', 'moreThanAgo', 14),
    );
    expect(withOperator(on('birthday', 'before', '2025-03-01'), fields, 'after')).toEqual(
      on('birthday', 'after', '2025-03-01'),
    );
  });

  it('drops the value for an operator that takes none', () => {
    expect(withOperator(on('email', 'contains', 'gmail'), fields, 'isSet')).toEqual(on('email', 'isSet'));
    expect(withOperator(on('birthday', 'before', '2025-03-01'), fields, 'anniversary')).toEqual(
      on('birthday', 'anniversary'),
    );
  });

  it('starts a number of days at 30, and drops the days for a date', () => {
    expect(withOperator(on('birthday', 'before', '2025-03-01'), fields, 'withinNext')).toEqual(
      on('birthday', 'withinNext', 30),
    );
    expect(withOperator(on('birthday', 'isSet'), fields, 'withinLast')).toEqual(
      on('birthday', 'withinLast', 30),
    );
    expect(withOperator(on('birthday', 'withinLast', 14), fields, 'on')).toEqual(on('birthday', 'on'));
  });

  it("ignores an operator the field's type does not have", () => {
    expect(withOperator(on('age', 'equals', 3), fields, 'contains')).toBeNull();
    expect(withOperator(on('age', 'equals', 3), fields, null)).toBeNull();
  });
});
