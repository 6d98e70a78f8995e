// @vitest-environment jsdom
import { act, cleanup } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderAt } from '../test/render.tsx';
import { listReturnPath, readListValue, useListState, type ListState } from './use-list-state.ts';

const defaults = { search: '', archived: false, page: 1 };
type Defaults = typeof defaults;

function mount(url: string) {
  const current: { state: ListState<Defaults> | null } = { state: null };
  function Probe() {
    current.state = useListState(defaults, {
      params: { search: 'things-search', archived: 'things-archived' },
    });
    return null;
  }
  const rendered = renderAt(url, <Probe />);
  const state = () => {
    if (!current.state) throw new Error('not rendered');
    return current.state;
  };
  return { ...rendered, state };
}

afterEach(cleanup);

describe('useListState', () => {
  it('reads the defaults from an address without the parameters', () => {
    const { state } = mount('/things');
    expect(state().values).toEqual({ search: '', archived: false, page: 1 });
  });

  it('reads typed values from the address, each under its own parameter', () => {
    const { state } = mount('/things?things-search=news&things-archived=true&page=3');
    expect(state().values).toEqual({ search: 'news', archived: true, page: 3 });
  });

  it('falls back to the default for a value it cannot read', () => {
    const { state } = mount('/things?things-archived=maybe&page=many');
    expect(state().values).toEqual({ search: '', archived: false, page: 1 });
  });

  it('writes changes to the address and reads them back, leaving other parameters alone', () => {
    const { state, search } = mount('/things?edit=1');
    act(() => state().set({ search: 'spring sale', archived: true }));
    expect(search().get('things-search')).toBe('spring sale');
    expect(search().get('things-archived')).toBe('true');
    expect(search().get('edit')).toBe('1');
    expect(state().values).toEqual({ search: 'spring sale', archived: true, page: 1 });
    act(() => state().set({ page: 2 }));
    expect(state().values.page).toBe(2);
    expect(search().get('things-search')).toBe('spring sale');
  });

  it('leaves a value equal to its default (or an empty search) out of the address', () => {
    const { state, search } = mount('/things?things-search=a&things-archived=true&page=2');
    act(() => state().set({ search: '', archived: false, page: 1 }));
    expect([...search().keys()]).toEqual([]);
  });

  it('resets every value to its default and keeps the other parameters', () => {
    const { state, search } = mount('/things?things-search=a&things-archived=true&page=4&edit=1');
    act(() => state().reset());
    expect(state().values).toEqual(defaults);
    expect(search().toString()).toBe('edit=1');
  });
});

describe('readListValue', () => {
  it('reads by the type of the default', () => {
    expect(readListValue('true', false)).toBe(true);
    expect(readListValue('false', true)).toBe(false);
    expect(readListValue('7', 1)).toBe(7);
    expect(readListValue('', 1)).toBe(1);
    expect(readListValue(null, 'x')).toBe('x');
  });
});

describe('listReturnPath', () => {
  it("keeps only the list's own parameters", () => {
    expect(listReturnPath('/emails', 'emails', '?emails-search=a&preview=1')).toBe('/emails?emails-search=a');
    expect(listReturnPath('/emails', 'emails', '?preview=1')).toBe('/emails');
  });
});
