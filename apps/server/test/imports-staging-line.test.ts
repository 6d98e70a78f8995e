import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseTag } from '@herald/contracts';
import type { CustomFieldRow } from '../src/features/fields/fields.queries.ts';
import { planColumns, stagingLine, stagingLineColumns } from '../src/features/imports/import-plan.ts';

/** Read one line of COPY text format back: tab-separated, `\N` null, backslash escapes undone. */
function readCopyLine(line: string): (string | null)[] {
  expect(line.endsWith('\n')).toBe(true);
  return line
    .slice(0, -1)
    .split('\t')
    .map((field) =>
      field === '\\N'
        ? null
        : field.replace(/\\(.)/g, (_m, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c),
    );
}

/** Read a PostgreSQL array literal of quoted elements back. */
function readPgArray(text: string): string[] {
  expect(text.startsWith('{') && text.endsWith('}')).toBe(true);
  const body = text.slice(1, -1);
  if (!body) return [];
  return [...body.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
}

const header = ['Email', 'First', 'Company', 'City', 'Score', 'Tags'];
const mapping = [
  { column: 'Email', field: 'email' },
  { column: 'First', field: 'firstName' },
  { column: 'Company', field: 'company' },
  { column: 'City', field: 'city' },
  { column: 'Score', field: 'score' },
  { column: 'Tags', field: 'tags' },
];
const customFields = [
  { name: 'city', type: 'string', isArray: false, enumValues: null, allowNewEnumValues: false },
  { name: 'score', type: 'number', isArray: false, enumValues: null, allowNewEnumValues: false },
] as unknown as CustomFieldRow[];
const plans = planColumns(header, mapping as never, customFields);
const columns = stagingLineColumns.split(', ');

/** Text with the characters COPY and JSON treat specially mixed in. */
const awkward = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\\', '\t', '\n', '\r', '"', ',', ' ', '\u2028', '{', '}', 'é', '😀'),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
  maxLength: 30,
});
const localPart = fc.stringMatching(/^[A-Za-z0-9._%+\\-]{1,20}$/);

describe('staging line', () => {
  it('carries every value through COPY text unchanged (trimmed), whatever characters it holds', () => {
    fc.assert(
      fc.property(
        localPart,
        awkward,
        awkward,
        awkward,
        fc.integer({ min: -1e6, max: 1e6 }),
        awkward,
        fc.nat(),
        (local, first, company, city, score, tags, rowNo) => {
          const email = `${local}@Example.com`;
          const cells = [email, first, company, city, String(score), tags];
          const line = stagingLine(cells, rowNo, plans);
          if (typeof line !== 'string') {
            // The only refusals for these values: a NUL somewhere.
            expect(cells.some((c) => c.includes('\u0000'))).toBe(true);
            return;
          }
          const row = Object.fromEntries(readCopyLine(line).map((v, i) => [columns[i], v]));
          const orNull = (v: string) => (v.trim() === '' ? null : v.trim());
          expect(row).toMatchObject({
            row_no: String(rowNo),
            email,
            email_lower: email.toLowerCase(),
            first_name: orNull(first),
            company: orNull(company),
            last_name: null,
          });
          const fields = JSON.parse(row.fields!) as Record<string, unknown>;
          expect(fields).toEqual({ ...(orNull(city) === null ? {} : { city: city.trim() }), score });
          const expectedTags = [...new Set(tags.trim().split(',').map(normaliseTag).filter(Boolean))];
          expect(tags.trim() === '' ? [] : readPgArray(row.tags!)).toEqual(
            tags.trim() === '' ? [] : expectedTags,
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a row for a NUL, a bad email or a value of the wrong type, with the reason', () => {
    expect(stagingLine(['a@b.io', 'x\u0000y', '', '', '', ''], 1, plans)).toEqual({
      reason: 'A value holds a NUL character, which text cannot.',
    });
    expect(stagingLine(['not an email', '', '', '', '', ''], 1, plans)).toEqual({
      reason: '"not an email" is not a valid email address.',
    });
    expect(stagingLine(['', 'Ann', '', '', '', ''], 1, plans)).toEqual({ reason: 'The email is missing.' });
    expect(stagingLine(['a@b.io', '', '', '', 'many', ''], 1, plans)).toEqual({
      reason: 'score must be a number.',
    });
  });
});
