import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { render, TemplateError } from '../src/index.ts';
import { account, newsletter, options } from './fixtures.ts';

const escapeHtml = (value: string) =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&#34;')
    .replace(/'/g, '&#39;');

/** Person data as imports and the API can hold it: strings with markup and control characters, numbers, lists, nesting. */
const fieldValue = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    '{{ account.name }}',
    '{% raw %}',
    '\r\nBcc: x@y.z',
    '&amp;',
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);
const person = fc.dictionary(
  fc.constantFrom(
    'firstName',
    'lastName',
    'plan',
    'company',
    'userId',
    'email',
    'tags',
    'constructor',
    '__proto__',
    'toString',
  ),
  fieldValue,
);

describe('properties', () => {
  it('any person data renders the newsletter without failing, with a one-line subject', () => {
    fc.assert(
      fc.property(person, (data) => {
        const message = render(newsletter, data, account, options);
        expect(message.subject).not.toMatch(/[\r\n]/);
        expect(message.html).toContain('</html>');
      }),
      { numRuns: 300 },
    );
  });

  it('a string field renders escaped in the HTML: its markup never reaches the document', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const { html, text } = render(
          {
            subject: 's',
            html: '<p id="v">{{ person.firstName }}</p><a title="{{ person.firstName }}">x</a>',
          },
          { firstName: value },
          account,
          options,
        );
        expect(html).toContain(`<p id="v">${escapeHtml(value)}</p>`);
        expect(html).toContain(`title="${escapeHtml(value)}"`);
        if (/[<>"]/.test(value)) expect(html).not.toContain(value);
        expect(typeof text).toBe('string');
      }),
      { numRuns: 500 },
    );
  });

  it('any template either compiles or fails with a TemplateError, never another error', () => {
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom(
        '{{',
        '}}',
        '{%',
        '%}',
        '{% if x %}',
        '{% endif %}',
        '{% for a in b %}',
        '{% endfor %}',
        '| default: "x"',
        '| nope',
        '{{ person.a }}',
        '<style>p{color:red}</style>',
        '<p>',
        '</p>',
        '"',
        "'",
        '\n',
      ),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
        (template) => {
          try {
            const message = render(
              { subject: template, preheader: template, html: template },
              { a: 'x' },
              account,
              options,
            );
            expect(typeof message.html).toBe('string');
          } catch (error) {
            expect(error).toBeInstanceOf(TemplateError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
