// @vitest-environment jsdom
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi, testQueryClient } from '../../test/api.tsx';
import { renderUi, uiTestTimeout } from '../../test/render-ui.tsx';
import { fieldsKey } from '../people/people.api.ts';
import { personField } from '../../test/fixtures.ts';
import { MergeTagPicker } from './merge-tag-picker.tsx';

function show() {
  const onInsert = vi.fn();
  const calls = stubApi(() => ({ status: 404 }));
  const client = testQueryClient([
    [
      fieldsKey,
      {
        items: [
          personField('firstName', 'string', 'First name'),
          personField('company', 'string', 'Company'),
        ],
      },
    ],
  ]);
  renderUi(<MergeTagPicker onInsert={onInsert} />, client);
  return { onInsert, calls };
}

/** The tags listed: each option's label and Liquid. */
const listed = () => [...document.querySelectorAll('.merge-tag-option')].map((option) => option.textContent);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('MergeTagPicker', { timeout: uiTestTimeout }, () => {
  it("lists the account's person fields, the account tags and the links under their headings once opened", async () => {
    const { calls } = show();
    expect(listed()).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Merge tag' }));
    expect(listed()).toEqual([
      'First name{{ person.firstName }}',
      'Company{{ person.company }}',
      'Account name{{ account.name }}',
      'Mailing address{{ account.mailingAddress }}',
      'Site{{ account.site }}',
      'Unsubscribe link{{ unsubscribe_url }}',
      'Preferences link{{ preferences_url }}',
      'View in browser link{{ view_in_browser_url }}',
    ]);
    expect(screen.getByText('Person fields')).toBeTruthy();
    expect(screen.getByText('Links')).toBeTruthy();
    expect(calls).toEqual([]);
  });

  it('filters by the search, leaving out headings with nothing under them', async () => {
    show();
    await userEvent.click(screen.getByRole('button', { name: 'Merge tag' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Search merge tags' }), 'comp');
    expect(listed()).toEqual(['Company{{ person.company }}']);
    expect(screen.queryByText('Links')).toBeNull();
  });

  it('inserts the chosen tag with the fallback, then closes and forgets the search', async () => {
    const { onInsert } = show();
    await userEvent.click(screen.getByRole('button', { name: 'Merge tag' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Search merge tags' }), 'first');
    await userEvent.type(screen.getByRole('textbox', { name: 'Fallback when empty' }), 'there');
    await userEvent.click(within(document.querySelector('.merge-tag-option')!).getByText('First name'));
    expect(onInsert).toHaveBeenCalledWith('{{ person.firstName | default: "there" }}');
    expect(listed()).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Merge tag' }));
    expect((screen.getByRole('textbox', { name: 'Search merge tags' }) as HTMLInputElement).value).toBe('');
    expect(listed()).toHaveLength(8);
  });

  it('inserts a link as it is, whatever the fallback', async () => {
    const { onInsert } = show();
    await userEvent.click(screen.getByRole('button', { name: 'Merge tag' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Fallback when empty' }), 'there');
    await userEvent.click(screen.getByText('Unsubscribe link'));
    expect(onInsert).toHaveBeenCalledWith('{{ unsubscribe_url }}');
  });
});
