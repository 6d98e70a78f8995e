// @vitest-environment jsdom
import type { Condition } from '@herald/contracts';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chooseOption, renderUi, uiTestTimeout } from '../../test/render-ui.tsx';
import { ConditionInput, type ConditionChoices } from './condition-input.tsx';
import { today } from './date-input.tsx';
import { personField } from '../../test/fixtures.ts';

const choices: ConditionChoices = {
  fields: [
    personField('email', 'string', 'Email'),
    personField('age', 'number', 'Age'),
    personField('vip', 'boolean', 'VIP'),
    personField('birthday', 'date', 'Birthday'),
    personField('plan', 'enum', 'Plan', ['free', 'pro']),
  ],
  tags: ['customer', 'newsletter'],
  eventNames: ['signed up'],
  segments: [{ id: 4, name: 'Customers' }],
};

function show(condition: Condition) {
  const onChange = vi.fn();
  renderUi(<ConditionInput condition={condition} choices={choices} onChange={onChange} />);
  return onChange;
}

/** The options a select offers once opened. */
async function optionsOf(name: string) {
  await userEvent.click(screen.getByRole('textbox', { name }));
  const listbox = await screen.findByRole('listbox');
  return within(listbox)
    .getAllByRole('option')
    .map((option) => option.textContent);
}

afterEach(cleanup);

describe('ConditionInput for a person field', { timeout: uiTestTimeout }, () => {
  it("offers the account's fields, and the operators of the chosen field's type", async () => {
    show({ type: 'field', field: 'age', operator: 'greaterThan', value: 30 });
    expect(await optionsOf('Field')).toEqual(['Email', 'Age', 'VIP', 'Birthday', 'Plan']);
    await userEvent.keyboard('{Escape}');
    expect(await optionsOf('Operator')).toEqual([
      'is',
      'is not',
      'is greater than',
      'is less than',
      'is set',
      'is not set',
    ]);
    expect((screen.getByRole('textbox', { name: 'Value' }) as HTMLInputElement).value).toBe('30');
  });

  it('emits the condition on the chosen field, keeping what still fits', async () => {
    const onChange = show({ type: 'field', field: 'email', operator: 'contains', value: 'gmail' });
    await chooseOption('Field', 'Age');
    expect(onChange).toHaveBeenLastCalledWith({ type: 'field', field: 'age', operator: 'equals' });
  });

  it('emits the condition with the chosen operator, a number of days starting at 30', async () => {
    const onChange = show({ type: 'field', field: 'birthday', operator: 'before', value: '2025-03-01' });
    await chooseOption('Operator', 'is within the last');
    expect(onChange).toHaveBeenLastCalledWith({
      type: 'field',
      field: 'birthday',
      operator: 'withinLast',
      value: 30,
    });
  });

  it('shows a days input for a days operator and none for an operator without a value', () => {
    show({ type: 'field', field: 'birthday', operator: 'moreThanAgo', value: 12 });
    expect((screen.getByRole('textbox', { name: 'Days' }) as HTMLInputElement).value).toBe('12 days ago');
    cleanup();
    show({ type: 'field', field: 'email', operator: 'isSet' });
    expect(screen.queryByRole('textbox', { name: 'Value' })).toBeNull();
  });

  it('turns a yes/no field with its switch', async () => {
    const onChange = show({ type: 'field', field: 'vip', operator: 'isTrue' });
    await userEvent.click(screen.getByRole('switch', { name: 'Value' }));
    expect(onChange).toHaveBeenLastCalledWith({ type: 'field', field: 'vip', operator: 'isFalse' });
  });

  it("offers a choice field's values", async () => {
    const onChange = show({ type: 'field', field: 'plan', operator: 'equals', value: '' });
    await chooseOption('Value', 'pro');
    expect(onChange).toHaveBeenLastCalledWith({
      type: 'field',
      field: 'plan',
      operator: 'equals',
      value: 'pro',
    });
  });
});

describe('ConditionInput for other conditions', { timeout: uiTestTimeout }, () => {
  it("emits the chosen tag from the account's tags", async () => {
    const onChange = show({ type: 'tag', operator: 'has', tag: '' });
    expect(await optionsOf('Tag')).toEqual(['customer', 'newsletter']);
    await userEvent.click(screen.getByRole('option', { name: 'newsletter' }));
    expect(onChange).toHaveBeenLastCalledWith({ type: 'tag', operator: 'has', tag: 'newsletter' });
  });

  it('points an email activity at one email, starting from #1', async () => {
    const window = { type: 'inTheLast', days: 30 } as const;
    const onChange = show({
      type: 'emailActivity',
      activity: 'clicked',
      performed: true,
      subject: { type: 'any' },
      window,
    });
    await chooseOption('Which emails', 'the email');
    expect(onChange).toHaveBeenLastCalledWith({
      type: 'emailActivity',
      activity: 'clicked',
      performed: true,
      subject: { type: 'email', id: 1 },
      window,
    });
  });

  it('resets the date added between days and a date, and keeps it otherwise', async () => {
    const onChange = show({ type: 'created', operator: 'withinLast', value: 14 });
    await chooseOption('When added', 'before');
    expect(onChange).toHaveBeenLastCalledWith({ type: 'created', operator: 'before', value: today() });
    await chooseOption('When added', 'more than');
    expect(onChange).toHaveBeenLastCalledWith({ type: 'created', operator: 'moreThanAgo', value: 14 });
  });

  it('asks for the days of a time window, 30 to start with', async () => {
    const onChange = show({
      type: 'pageVisited',
      performed: false,
      match: 'contains',
      url: '/pricing',
      window: { type: 'ever' },
    });
    await chooseOption('When', 'in the last');
    expect(onChange).toHaveBeenLastCalledWith({
      type: 'pageVisited',
      performed: false,
      match: 'contains',
      url: '/pricing',
      window: { type: 'inTheLast', days: 30 },
    });
  });
});
