import { z } from 'zod';

/** inputFields: the spec's tree of properties and values (docs/flows.md), decoded into plain objects and back. */

export type InputField = { value?: unknown; properties?: Record<string, InputField> };
export type InputFields = { properties?: Record<string, InputField> };
export const InputFields: z.ZodType<InputFields> = z.lazy(() =>
  z.object({ properties: z.record(z.string().max(100), InputFieldSchema).optional() }).loose(),
);
const InputFieldSchema: z.ZodType<InputField> = z.lazy(() =>
  z
    .object({
      value: z.unknown().optional(),
      properties: z.record(z.string().max(100), InputFieldSchema).optional(),
    })
    .loose(),
);

/** `{ properties: { email: { properties: { id: { value: 7 } } } } }` → `{ email: { id: 7 } }`. */
export function decodeInputFields(fields: InputFields | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields?.properties ?? {})) {
    if (field.properties) out[key] = decodeInputFields(field);
    else if (field.value !== undefined) out[key] = field.value;
  }
  return out;
}

/** The inverse of decodeInputFields: plain objects become nested properties, everything else a value (arrays too). */
export function encodeInputFields(config: Record<string, unknown>): InputFields {
  const properties: Record<string, InputField> = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    properties[key] =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? encodeInputFields(value as Record<string, unknown>)
        : { value };
  }
  return { properties };
}

/** The email of a send step (docs/flows.md), or null. */
export function sendStepEmailId(fields: InputFields | null | undefined): number | null {
  const v = fields?.properties?.email?.properties?.id?.value;
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;
}

// The settings tree is recursive: named components in the OpenAPI document instead of generated ids.
z.globalRegistry.add(InputFields, { id: 'FlowStepInputFields' });
z.globalRegistry.add(InputFieldSchema, { id: 'FlowStepInputField' });
