import { describe, expect, it } from 'vitest';
import { personField } from '../../test/fixtures.ts';
import { mergeTagText, mergeTagsFor } from './merge-tags.ts';

const fields = [
  personField('firstName', 'string', 'First name'),
  personField('plan level', 'string', ''),
  personField('age', 'number', 'Age'),
];

describe('mergeTagsFor', () => {
  it("lists the person fields by title (else name), then the account's tags and the links", () => {
    expect(mergeTagsFor(fields, '').map((tag) => [tag.group, tag.label, tag.liquid])).toEqual([
      ['person', 'First name', '{{ person.firstName }}'],
      ['person', 'plan level', '{{ person["plan level"] }}'],
      ['person', 'Age', '{{ person.age }}'],
      ['account', 'Account name', '{{ account.name }}'],
      ['account', 'Mailing address', '{{ account.mailingAddress }}'],
      ['account', 'Site', '{{ account.site }}'],
      ['links', 'Unsubscribe link', '{{ unsubscribe_url }}'],
      ['links', 'Preferences link', '{{ preferences_url }}'],
      ['links', 'View in browser link', '{{ view_in_browser_url }}'],
    ]);
  });

  it('keeps the tags whose label or Liquid holds the search, in any case, spaces around it ignored', () => {
    expect(mergeTagsFor(fields, '  NAME ').map((tag) => tag.label)).toEqual(['First name', 'Account name']);
    expect(mergeTagsFor(fields, 'person.').map((tag) => tag.label)).toEqual(['First name', 'Age']);
    expect(mergeTagsFor(fields, '_url').map((tag) => tag.label)).toEqual([
      'Unsubscribe link',
      'Preferences link',
      'View in browser link',
    ]);
    expect(mergeTagsFor(fields, 'nothing like it')).toEqual([]);
  });
});

describe('mergeTagText', () => {
  const [firstName, quoted] = mergeTagsFor(fields, '');
  const site = mergeTagsFor([], 'site')[0]!;

  it("inserts a tag's Liquid as it is without a fallback", () => {
    expect(mergeTagText(firstName!, '')).toBe('{{ person.firstName }}');
    expect(mergeTagText(firstName!, '   ')).toBe('{{ person.firstName }}');
  });

  it('adds the fallback, trimmed and quoted, to a person field only', () => {
    expect(mergeTagText(firstName!, ' there ')).toBe('{{ person.firstName | default: "there" }}');
    expect(mergeTagText(quoted!, 'a "friend"')).toBe(
      '{{ person["plan level"] | default: "a \\"friend\\"" }}',
    );
    expect(mergeTagText(site, 'there')).toBe('{{ account.site }}');
  });
});
