import fc from 'fast-check';
import { z } from 'zod';
import type { RouteDef } from '../../src/http/route.ts';
import { arbitraryOf, type JsonSchema, type SchemaContext } from './fuzz-schema.ts';

/**
 * One fuzzed request for a route: path parameters, a query string and a body, each either shaped by the route's
 * schema (or its example) or mutated into something a careless or hostile client sends.
 */
export interface FuzzRequest {
  /** Path parameters by name, as text (they go into the URL encoded). */
  params: Record<string, string>;
  query: string;
  /** The body as sent: JSON text, other text, or nothing. */
  body?: string;
  contentType?: string;
  /** What was done to it (shown when the request fails a check). */
  kind: string;
}

/** Values of the wrong kind, out of range, or hostile, that a mutation puts in place of a value. */
const hostileValues: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  -0.5,
  1.5,
  2 ** 31,
  -(2 ** 31),
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  -1e308,
  1e-308,
  '',
  ' ',
  '0',
  '-1',
  '1e999',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  'x'.repeat(5000),
  'é'.repeat(100_001),
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u202e\u0301',
  '😀'.repeat(50),
  '\r\n\r\nX-Injected: 1',
  '%00%ff',
  "' or 1=1 --",
  '"; drop table people; --',
  '{{ 7 | times: 7 }}',
  '{% raw %}',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  '../../../../etc/passwd',
  'http://169.254.169.254/latest',
  'a@b',
  'not-an-email',
  '2026-02-30T25:61:00Z',
  '9999-12-31T23:59:59Z',
  [],
  [null],
  [1, 'a', {}],
  {},
  JSON.parse('{"__proto__":{"polluted":true}}'),
  { constructor: { prototype: { polluted: true } } },
];

/** Keys every object inherits, and one no schema has: a lookup by a client's key must not find the inherited ones. */
const extraKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'extraField',
];

/** Raw bodies that are not JSON, or JSON no schema expects. */
const rawBodies = [
  '{',
  '{"a":',
  '}',
  '[',
  'null',
  '0',
  '"text"',
  '[]',
  '\u0000',
  'a=1&b=2',
  '{"__proto__":{"x":1}}',
  '{"a":1,"a":2}',
  '\ufeff{}',
  'x'.repeat(10_000),
];
const contentTypes = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'image/png',
  'text/csv',
  '',
];
/** Path parameters that are not what the route expects. */
const hostileParams = [
  'abc',
  '-1',
  '0',
  '1.5',
  '1e3',
  '99999999999999999999',
  String(2 ** 53),
  '%00',
  '%2e%2e%2f',
  '%20',
  'null',
  '__proto__',
  '%F0%9F%98%80',
  'a'.repeat(600),
  "1' or '1'='1",
];

/** JSON text of arrays and objects nested `depth` deep, written as text (JSON.stringify itself fails past ~10,000). */
function deepNesting(depth: number): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    open += i % 2 === 0 ? '[' : '{"a":';
    close = (i % 2 === 0 ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

const deepMarker = '\u0001deep\u0001';

/** Every place in a JSON value (paths of keys and indexes). */
function pathsOf(
  value: unknown,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...prefix, index], out));
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) pathsOf(item, [...prefix, key], out);
  return out;
}

function replaceAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head!] = replaceAt(copy[head!], rest, replacement);
  return copy;
}

function removeAt(value: unknown, path: (string | number)[]): unknown {
  if (path.length === 0) return undefined;
  const [head, ...rest] = path;
  if (rest.length === 0) {
    if (Array.isArray(value)) return value.filter((_item, index) => index !== head);
    const { [head as string]: _gone, ...others } = value as Record<string, unknown>;
    return others;
  }
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head!] = removeAt(copy[head!], rest);
  return copy;
}

/** A JSON text with `key` added to the object at `path` (raw, so that `__proto__` stays an own key on the wire). */
function withRawKey(value: unknown, key: string, extra: unknown): string {
  const text = JSON.stringify(value ?? {});
  if (!text.startsWith('{')) return text;
  return text === '{}'
    ? `{${JSON.stringify(key)}:${JSON.stringify(extra)}}`
    : `{${JSON.stringify(key)}:${JSON.stringify(extra)},${text.slice(1)}`;
}

/** A valid-shaped value mutated one of several ways. */
function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<{ text: string; kind: string }> {
  return fc
    .tuple(valid, fc.nat(), fc.constantFrom(...hostileValues), fc.nat(8))
    .map(([value, at, hostile, how]) => {
      const paths = pathsOf(value);
      const path = paths[at % paths.length]!;
      switch (how) {
        case 0:
        case 1:
        case 2:
          return {
            text: JSON.stringify(replaceAt(value, path, hostile)) ?? 'null',
            kind: `replaced ${path.join('.') || 'body'}`,
          };
        case 3:
          return {
            text: JSON.stringify(removeAt(value, path) ?? null),
            kind: `removed ${path.join('.') || 'body'}`,
          };
        case 4:
          return { text: withRawKey(value, extraKeys[at % extraKeys.length]!, hostile), kind: 'extra key' };
        case 5:
          // Mostly up to 3,000 levels; now and then 50,000 (deeper than any recursive walk of the value survives).
          return {
            text: JSON.stringify(replaceAt(value, path, deepMarker)).replace(
              JSON.stringify(deepMarker),
              deepNesting(at % 7 === 0 ? 50_000 : 1 + (at % 3000)),
            ),
            kind: `deep nesting at ${path.join('.') || 'body'}`,
          };
        case 6:
          return {
            text: JSON.stringify(Array.isArray(value) ? { items: value } : [value]),
            kind: 'array for object',
          };
        case 7:
          return { text: rawBodies[at % rawBodies.length]!, kind: 'not JSON' };
        default:
          return {
            text: JSON.stringify(
              replaceAt(value, path, typeof hostile === 'string' ? hostile : String(hostile)),
            ),
            kind: `string at ${path.join('.') || 'body'}`,
          };
      }
    });
}

function jsonSchemaOf(schema: z.ZodType): { root: JsonSchema; context: Pick<SchemaContext, 'defs'> } {
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, any>;
  return { root, context: { defs: (root.$defs ?? {}) as Record<string, JsonSchema> } };
}

/** The route's example with each number kept or swapped for one of the account's ids (its flowId, person ids...). */
function exampleWithKnownIds(example: unknown, numbers: number[]): fc.Arbitrary<unknown> {
  if (typeof example === 'number' && numbers.length > 0)
    return fc.oneof(fc.constant(example), fc.constantFrom(...numbers));
  if (Array.isArray(example)) return fc.tuple(...example.map((item) => exampleWithKnownIds(item, numbers)));
  if (example && typeof example === 'object') {
    return fc.record(
      Object.fromEntries(
        Object.entries(example).map(([key, item]) => [key, exampleWithKnownIds(item, numbers)]),
      ),
    );
  }
  return fc.constant(example);
}

function queryText(value: unknown): string {
  if (!value || typeof value !== 'object') return '';
  const search = new URLSearchParams();
  for (const [key, item] of Object.entries(value)) {
    for (const one of Array.isArray(item) ? item : [item])
      search.append(key, typeof one === 'string' ? one : JSON.stringify(one));
  }
  return search.toString();
}

/**
 * The request arbitrary of one route; `known` feeds real ids and names of the signed-in account, and `preferred`
 * the values of the right kind for a path parameter (the broadcast's id for /v1/broadcasts/:id), tried most often.
 */
export function requestArbitrary(
  route: RouteDef,
  known: SchemaContext['known'],
  preferred: Record<string, string[]> = {},
): fc.Arbitrary<FuzzRequest> {
  const names = [...route.url.matchAll(/:([a-zA-Z]+)|\*/g)].map((m) => m[1] ?? '*');
  const paramSchema = route.params ? jsonSchemaOf(route.params) : undefined;
  const paramArbitrary = (name: string): fc.Arbitrary<string> => {
    const shaped = paramSchema
      ? arbitraryOf((paramSchema.root as any).properties?.[name] ?? true, { ...paramSchema.context, known })
      : fc.string();
    const right = preferred[name] ?? [];
    return fc.oneof(
      {
        arbitrary:
          right.length > 0 ? fc.constantFrom(...right) : fc.constantFrom(...known.numbers.map(String)),
        weight: 6,
      },
      { arbitrary: fc.constantFrom(...known.numbers.map(String), ...known.strings), weight: 2 },
      { arbitrary: shaped.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))), weight: 2 },
      { arbitrary: fc.constantFrom(...hostileParams), weight: 2 },
    );
  };
  const params =
    names.length > 0
      ? fc.record(Object.fromEntries(names.map((name) => [name, paramArbitrary(name)])))
      : fc.constant({});

  const querySchema = route.query ? jsonSchemaOf(route.query) : undefined;
  const shapedQuery = querySchema
    ? arbitraryOf(querySchema.root, { ...querySchema.context, known })
    : fc.constant({});
  const query = fc.oneof(
    { arbitrary: shapedQuery.map(queryText), weight: 4 },
    {
      arbitrary: mutated(shapedQuery).map((m) => {
        try {
          return queryText(JSON.parse(m.text));
        } catch {
          return `q=${encodeURIComponent(m.text)}`;
        }
      }),
      weight: 2,
    },
    {
      arbitrary: fc.constantFrom(
        'a=1&a=2&a=3',
        '%zz',
        '__proto__[x]=1',
        'constructor=1',
        `page=${'9'.repeat(40)}`,
        'query=%00',
        '&&&=',
        'x'.repeat(3000),
      ),
      weight: 1,
    },
  );

  const bodySchema = route.body ? jsonSchemaOf(route.body) : undefined;
  const shaped: fc.Arbitrary<unknown> = bodySchema
    ? arbitraryOf(bodySchema.root, { ...bodySchema.context, known })
    : fc.constant(undefined);
  const valid =
    route.example !== undefined
      ? fc.oneof(shaped, exampleWithKnownIds(route.example, known.numbers))
      : shaped;
  const body = fc.oneof(
    {
      arbitrary: valid.map((value) => ({
        text: value === undefined ? undefined : JSON.stringify(value),
        kind: 'shaped',
      })),
      weight: 5,
    },
    { arbitrary: mutated(valid), weight: 4 },
    {
      arbitrary: fc
        .jsonValue({ maxDepth: 3 })
        .map((value) => ({ text: JSON.stringify(value), kind: 'any JSON' })),
      weight: 1,
    },
  );
  const contentType = fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 9 },
    { arbitrary: fc.constantFrom(...contentTypes), weight: 1 },
  );

  return fc.tuple(params, query, body, contentType).map(([p, q, b, type]) => ({
    params: p as Record<string, string>,
    query: q,
    ...(b.text !== undefined ? { body: b.text, contentType: type } : {}),
    kind: `${b.kind}${type !== 'application/json' && b.text !== undefined ? ` as ${type || 'no type'}` : ''}`,
  }));
}

/** The URL of a fuzzed request. */
export function urlOf(route: RouteDef, request: FuzzRequest): string {
  const path = route.url.replace(/:([a-zA-Z]+)|\*/g, (_all, name: string | undefined) => {
    const value = request.params[name ?? '*'] ?? '1';
    // Hostile parameters are written already encoded (%00, %2e...); others are encoded here.
    return /%[0-9a-fA-F]{2}|%zz/.test(value) ? value : encodeURIComponent(value);
  });
  return request.query ? `${path}?${request.query}` : path;
}
