import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastTemplate } from '../src/fast-liquid.ts';
import { htmlEngine, textEngine } from '../src/liquid.ts';
import { plain } from '../src/render.ts';

const paths = [
  'person.a',
  'person.b',
  'person["c d"]',
  'account.name',
  'x',
  'person.a.b',
  'missing.deep.path',
  'person.toString',
  'account.constructor',
];
const defaultText = fc.string({ maxLength: 8 }).filter((s) => !/["\\{}%]/.test(s));
const output = fc
  .record({
    path: fc.constantFrom(...paths),
    fallback: fc.option(defaultText, { nil: undefined }),
    raw: fc.boolean(),
  })
  .map(
    ({ path, fallback, raw }) =>
      `{{ ${path}${fallback !== undefined ? ` | default: "${fallback}"` : ''}${raw ? ' | raw' : ''} }}`,
  );
const text = fc.string({ maxLength: 12 }).filter((s) => !/[{}%]/.test(s));
const template = fc
  .array(fc.oneof(text, output), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.join(''));

const primitive = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.constantFrom('', '<b>"Tom" & \'Jerry\'</b>', 0, -0, 1.5, -3, 1e21, NaN, true, false, null, undefined),
);
const value = fc.oneof(
  { weight: 4, arbitrary: primitive },
  { weight: 1, arbitrary: fc.oneof(fc.record({ b: primitive }), fc.array(primitive, { maxLength: 2 })) },
);
const scopeOf = fc.record({
  person: fc.record({ a: value, b: value, 'c d': value }, { requiredKeys: [] }),
  account: fc.record({ name: primitive }),
  x: value,
});

describe('fast reading of simple merge tags', () => {
  for (const [name, engine] of [
    ['HTML (escaped output)', htmlEngine],
    ['text', textEngine],
  ] as const) {
    it(`writes exactly what Liquid writes, or gives way to it (${name})`, () => {
      let read = 0;
      fc.assert(
        fc.property(template, scopeOf, (source, given) => {
          const templates = engine.parse(source);
          const fast = fastTemplate(engine, templates);
          expect(fast).not.toBeNull();
          const scope = plain(given) as Record<string, unknown>;
          const expected = engine.renderSync(templates, scope) as string;
          const got = fast!(scope);
          if (got !== null) {
            read++;
            expect(got).toBe(expected);
          }
        }),
        { numRuns: 1500 },
      );
      // Most draws are plain values: the fast reading must have taken most of them, or this test shows nothing.
      expect(read).toBeGreaterThan(500);
    });
  }

  it('has no fast reading for tags, other filters, literals or the special keys', () => {
    for (const source of [
      '{% if x %}y{% endif %}',
      '{{ x | upcase }}',
      '{{ "lit" }}',
      '{{ 3 }}',
      '{{ list.size }}',
      '{{ x | default: y }}',
      '{{ x | raw | escape }}',
      '{% assign y = 1 %}',
    ]) {
      expect(fastTemplate(htmlEngine, htmlEngine.parse(source)), source).toBeNull();
    }
  });
});
