import { z } from 'zod';

/**
 * Bodies that carry an entity whole (docs/api.md, "Serialized entity bodies"). A client that keeps a step,
 * flow, email… in its state sends it back as it holds it: the fields it may change, and beside them the fields the
 * server works out (ids, counts, timestamps, derived flags) and the ones only the client keeps (temporary ids,
 * pending marks, popup places). `entityBody` accepts the second kind with any value and drops them before the
 * service sees the body; any key that is neither is refused, as a strict object refuses it, so a typo is not lost.
 */

/** A field the server decides or only the client keeps: any value, accepted and dropped. */
export const ignoredField = z
  .unknown()
  .optional()
  .meta({ description: 'Read-only or client-only: accepted and ignored.' });

type IgnoredShape<K extends string> = { [P in K]: typeof ignoredField };

/**
 * The body schema for an entity: `writable` (the fields the call reads, each with its own schema, strict) plus
 * `ignored` (accepted with any value and stripped). The output holds the writable fields only.
 */
export function entityBody<S extends z.ZodRawShape, const K extends readonly string[]>(
  writable: S,
  ignored: K,
) {
  const overlap = ignored.filter((key) => Object.hasOwn(writable, key));
  if (overlap.length > 0) throw new Error(`entityBody: ${overlap.join(', ')} both written and ignored`);
  const ignoredShape = Object.fromEntries(ignored.map((key) => [key, ignoredField])) as IgnoredShape<
    K[number]
  >;
  return z.strictObject({ ...writable, ...ignoredShape }).transform((body) => {
    const kept: Record<string, unknown> = { ...body };
    for (const key of ignored) delete kept[key];
    return kept as z.output<z.ZodObject<S, z.core.$strict>>;
  });
}

/** The entity's id in a body sent to its own address: absent or the same id, else this 400 message. */
export const bodyIdMismatch = (entity: string) => `The ${entity} id in the body does not match the address.`;
