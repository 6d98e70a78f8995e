// @vitest-environment jsdom
import type { ConditionNode } from '@herald/contracts';
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderUi, uiTestTimeout } from '../../test/render-ui.tsx';
import type { ConditionChoices } from './condition-input.tsx';
import { GroupEditor } from './group-editor.tsx';

const choices: ConditionChoices = {
  fields: [],
  tags: ['vip'],
  eventNames: [],
  segments: [{ id: 4, name: 'Customers' }],
};
const hasVip: ConditionNode = { type: 'tag', operator: 'has', tag: 'vip' };

function show(nodes: ConditionNode[], operator: 'and' | 'or' = 'and', depth = 0) {
  const onChange = vi.fn();
  renderUi(
    <GroupEditor operator={operator} nodes={nodes} choices={choices} depth={depth} onChange={onChange} />,
  );
  return onChange;
}

async function addCondition(label: string) {
  await userEvent.click(screen.getByRole('button', { name: 'Add condition' }));
  await userEvent.click(await screen.findByRole('menuitem', { name: label }));
}

afterEach(cleanup);

describe('GroupEditor', { timeout: uiTestTimeout }, () => {
  it("adds a condition of the chosen type with the editor's defaults, a segment one on the first other segment", async () => {
    const onChange = show([hasVip]);
    await addCondition('In segment');
    expect(onChange).toHaveBeenLastCalledWith(
      [hasVip, { type: 'segment', operator: 'in', segmentId: 4 }],
      'and',
    );
    await addCondition('Date added');
    expect(onChange).toHaveBeenLastCalledWith(
      [hasVip, { type: 'created', operator: 'withinLast', value: 30 }],
      'and',
    );
  });

  it('adds a nested group that joins the other way, and none inside a group at the fourth level', async () => {
    const onChange = show([hasVip], 'or');
    await userEvent.click(screen.getByRole('button', { name: 'Add group' }));
    expect(onChange).toHaveBeenLastCalledWith(
      [hasVip, { type: 'group', operator: 'and', conditions: [] }],
      'or',
    );
    cleanup();
    show([], 'and', 3);
    expect(screen.queryByRole('button', { name: 'Add group' })).toBeNull();
  });

  it('removes a condition, and changes a condition inside a nested group', async () => {
    const nested: ConditionNode = { type: 'group', operator: 'or', conditions: [hasVip] };
    const onChange = show([hasVip, nested]);
    await userEvent.click(screen.getAllByRole('button', { name: 'Remove condition' })[0]!);
    expect(onChange).toHaveBeenLastCalledWith([nested], 'and');
    await userEvent.click(screen.getAllByRole('textbox', { name: 'Has or has not' })[1]!);
    await userEvent.click(await screen.findByRole('option', { name: 'does not have tag' }));
    expect(onChange).toHaveBeenLastCalledWith(
      [hasVip, { type: 'group', operator: 'or', conditions: [{ ...hasVip, operator: 'hasNot' }] }],
      'and',
    );
  });

  it('switches between all and any of its conditions', async () => {
    const onChange = show([hasVip, hasVip]);
    expect(screen.getByText('AND')).toBeTruthy();
    await userEvent.click(screen.getByRole('radio', { name: 'any' }));
    expect(onChange).toHaveBeenLastCalledWith([hasVip, hasVip], 'or');
  });
});
