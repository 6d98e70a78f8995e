import fc from 'fast-check';

/**
 * Values shaped by a JSON Schema (the one zod writes for a route's body, query or path, as the OpenAPI document
 * shows it): objects with their properties, strings within their lengths and patterns, numbers within their
 * bounds, enums and constants, unions, references. `known` strings (the account's ids, emails, tags, names...)
 * are mixed in, so that generated requests reach real rows rather than only missing ones.
 */
export type JsonSchema = boolean | { [key: string]: any };

export interface SchemaContext {
  /** `$defs` of the root schema, for `#/$defs/...` references. */
  defs: Record<string, JsonSchema>;
  known: { strings: string[]; numbers: number[] };
}

/** Deeper than this, objects keep only their required properties and arrays their fewest items. */
const maxDepth = 4;
const anyJson = fc.jsonValue({ maxDepth: 2 });

export function arbitraryOf(schema: JsonSchema, context: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  if (schema === true || schema === undefined) return anyJson;
  if (schema === false) return fc.constant(undefined);
  if (typeof schema.$ref === 'string') {
    const name = decodeURIComponent(
      schema.$ref.replace(/^#\/(\$defs|definitions|components\/schemas)\//, ''),
    );
    const target = context.defs[name];
    if (target === undefined) return anyJson;
    return depth > maxDepth + 2 ? fc.constant(null) : arbitraryOf(target, context, depth + 1);
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union) && union.length > 0)
    return fc.oneof(...union.map((s) => arbitraryOf(s, context, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0)
    return arbitraryOf(mergeAll(schema.allOf), context, depth);
  if (Array.isArray(schema.type))
    return fc.oneof(
      ...(schema.type as string[]).map((type) => arbitraryOf({ ...schema, type }, context, depth)),
    );
  switch (schema.type) {
    case 'string':
      return stringOf(schema, context);
    case 'integer':
    case 'number':
      return numberOf(schema, context);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayOf(schema, context, depth);
    case 'object':
      return objectOf(schema, context, depth);
    default:
      if (schema.properties) return objectOf(schema, context, depth);
      return anyJson;
  }
}

function mergeAll(schemas: JsonSchema[]): JsonSchema {
  const merged: Record<string, any> = { type: 'object', properties: {}, required: [] };
  for (const part of schemas) {
    if (typeof part !== 'object') continue;
    Object.assign(merged.properties, part.properties ?? {});
    merged.required.push(...((part.required as string[] | undefined) ?? []));
  }
  return merged;
}

function stringOf(schema: Record<string, any>, context: SchemaContext): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = Math.min((schema.maxLength as number | undefined) ?? 60, Math.max(minLength, 60));
  const fits = (s: string) =>
    s.length >= minLength && s.length <= ((schema.maxLength as number | undefined) ?? Infinity);
  let shaped: fc.Arbitrary<string>;
  switch (schema.format) {
    case 'email':
      shaped = fc.emailAddress();
      break;
    case 'date-time':
      shaped = fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
      break;
    case 'date':
      shaped = fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
      break;
    case 'uri':
    case 'url':
      shaped = fc.webUrl();
      break;
    default:
      shaped = schema.pattern
        ? patterned(schema.pattern as string, minLength, maxLength)
        : fc.string({ minLength, maxLength, unit: 'grapheme' });
  }
  const known = context.known.strings.filter(fits);
  return known.length > 0
    ? fc.oneof({ arbitrary: shaped, weight: 3 }, { arbitrary: fc.constantFrom(...known), weight: 1 })
    : shaped;
}

function patterned(pattern: string, minLength: number, maxLength: number): fc.Arbitrary<string> {
  try {
    return fc
      .stringMatching(new RegExp(pattern))
      .filter((s) => s.length >= minLength && s.length <= Math.max(maxLength, 200));
  } catch {
    return fc.string({ minLength, maxLength });
  }
}

function numberOf(schema: Record<string, any>, context: SchemaContext): fc.Arbitrary<number> {
  const isInteger = schema.type === 'integer';
  let min = (schema.minimum as number | undefined) ?? -1e9;
  let max = (schema.maximum as number | undefined) ?? 1e9;
  if (typeof schema.exclusiveMinimum === 'number')
    min = isInteger ? schema.exclusiveMinimum + 1 : schema.exclusiveMinimum + 1e-6;
  if (typeof schema.exclusiveMaximum === 'number')
    max = isInteger ? schema.exclusiveMaximum - 1 : schema.exclusiveMaximum - 1e-6;
  min = Math.max(min, Number.MIN_SAFE_INTEGER);
  max = Math.min(max, Number.MAX_SAFE_INTEGER);
  if (min > max) return fc.constant(min);
  const shaped = isInteger
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  const known = context.known.numbers.filter((n) => n >= min && n <= max);
  return known.length > 0
    ? fc.oneof({ arbitrary: shaped, weight: 1 }, { arbitrary: fc.constantFrom(...known), weight: 1 })
    : shaped;
}

function arrayOf(
  schema: Record<string, any>,
  context: SchemaContext,
  depth: number,
): fc.Arbitrary<unknown[]> {
  const minLength = (schema.minItems as number | undefined) ?? 0;
  const maxLength =
    depth >= maxDepth ? minLength : Math.min((schema.maxItems as number | undefined) ?? 4, minLength + 4);
  if (Array.isArray(schema.prefixItems)) {
    return fc.tuple(...(schema.prefixItems as JsonSchema[]).map((s) => arbitraryOf(s, context, depth + 1)));
  }
  const items = arbitraryOf((schema.items as JsonSchema | undefined) ?? true, context, depth + 1);
  return fc.array(items, { minLength, maxLength });
}

function objectOf(
  schema: Record<string, any>,
  context: SchemaContext,
  depth: number,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const keys = Object.keys(properties).filter((key) => depth < maxDepth || required.has(key));
  const model = Object.fromEntries(
    keys.map((key) => [key, arbitraryOf(properties[key]!, context, depth + 1)]),
  );
  const fixed = fc.record(model, { requiredKeys: keys.filter((key) => required.has(key)) });
  const extra = schema.additionalProperties;
  if (!extra || keys.length > 0 || depth >= maxDepth) return fixed;
  // A map (z.record): a few keys of the key schema, values of the value schema.
  const keyArbitrary = schema.propertyNames
    ? (arbitraryOf(schema.propertyNames, context, depth + 1) as fc.Arbitrary<string>)
    : fc.string({ maxLength: 20 });
  return fc.dictionary(keyArbitrary.map(String), arbitraryOf(extra, context, depth + 1), { maxKeys: 4 });
}
