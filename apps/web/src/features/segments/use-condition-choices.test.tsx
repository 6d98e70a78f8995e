// @vitest-environment jsdom
import { cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi, testQueryClient, withQueryClient } from '../../test/api.tsx';
import { fieldsKey } from '../people/people.api.ts';
import { tagsKey } from '../tags/tags.api.ts';
import { personField, segment } from '../../test/fixtures.ts';
import { useConditionChoices } from './use-condition-choices.ts';

const fields = [personField('email', 'string', 'Email'), personField('age', 'number', 'Age')];
const segments = [
  segment(1, 'All people', 'allPeople'),
  segment(2, 'Archived', 'archived'),
  segment(3, 'Customers'),
  segment(4, 'Leads'),
];
const tag = (name: string) => ({ tag: name, description: null, createdAt: '2025-01-01T00:00:00.000Z' });

function mount(enabled: boolean, currentId: number | undefined) {
  const calls = stubApi(() => ({
    status: 500,
    body: { statusCode: 500, name: 'Error', message: 'Not in this test.' },
  }));
  const client = testQueryClient([
    [fieldsKey, { items: fields }],
    [tagsKey, { tags: [tag('customer'), tag('vip')] }],
    [['segments', 'event-names'], { names: ['signed up', 'upgraded'] }],
  ]);
  const { result } = renderHook(() => useConditionChoices(enabled, segments, currentId), {
    wrapper: withQueryClient(client),
  });
  return { choices: result.current, calls };
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('useConditionChoices', () => {
  it("offers the account's fields, tag names and event names", () => {
    const { choices, calls } = mount(true, 3);
    expect(calls).toEqual([]);
    expect(choices.fields).toEqual(fields);
    expect(choices.tags).toEqual(['customer', 'vip']);
    expect(choices.eventNames).toEqual(['signed up', 'upgraded']);
  });

  it('offers the other segments by id and name, never the one being edited nor All People', () => {
    expect(mount(true, 3).choices.segments).toEqual([
      { id: 2, name: 'Archived' },
      { id: 4, name: 'Leads' },
    ]);
    expect(mount(true, undefined).choices.segments.map((s) => s.id)).toEqual([2, 3, 4]);
  });

  it('asks the server nothing while the editor is closed', () => {
    const client = testQueryClient();
    const calls = stubApi(() => ({ body: {} }));
    const { result } = renderHook(() => useConditionChoices(false, undefined, undefined), {
      wrapper: withQueryClient(client),
    });
    expect(result.current).toEqual({ fields: [], tags: [], eventNames: [], segments: [] });
    expect(calls).toEqual([]);
  });
});
