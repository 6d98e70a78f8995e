import { accountMergeTags, personMergeTag, type MergeTag, type PersonField } from '@herald/contracts';

/** What the merge-tag picker lists and inserts, as plain functions. */

/** The account's person fields (by title, else name), then the account tags and the links; a search keeps the tags whose label or Liquid holds it. */
export function mergeTagsFor(fields: PersonField[], search: string): MergeTag[] {
  const query = search.trim().toLowerCase();
  const personTags: MergeTag[] = fields.map((field) => ({
    label: field.title || field.name,
    liquid: personMergeTag(field.name),
    group: 'person',
  }));
  return [...personTags, ...accountMergeTags].filter(
    (tag) => !query || tag.label.toLowerCase().includes(query) || tag.liquid.toLowerCase().includes(query),
  );
}

/** The Liquid a tag inserts: a person field with a fallback prints the fallback when the field is empty. */
export function mergeTagText(tag: MergeTag, fallback: string): string {
  return tag.group === 'person' && fallback.trim()
    ? tag.liquid.replace(/ \}\}$/, ` | default: ${JSON.stringify(fallback.trim())} }}`)
    : tag.liquid;
}
