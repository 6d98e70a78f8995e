/**
 * Reading a captured form submission: which fields are kept (never passwords, card numbers or security codes,
 * whatever the script sent), the form's stable hash, the field that identifies the person and the person values
 * its mapping gives. Pure functions, property-tested.
 */
import crypto from 'node:crypto';
import type { SiteFormField } from '@herald/contracts';
import { z } from 'zod';

const emailSchema = z.email();
/** Names that say a field holds a secret or payment data. */
const secretName =
  /pass(word|wd|phrase)?|pwd|pin$|card|cc-?(num|number|csc|cvc|exp)|cvv|cvc|csc|security.?code|iban|ssn|social.?security/i;
const secretTypes = new Set(['password']);

/** True for 13 to 19 digits (spaces and dashes allowed) that pass the Luhn check: a card number. */
export function looksLikeCardNumber(value: string): boolean {
  if (!/^[\d -]{13,40}$/.test(value)) return false;
  const digits = value.replace(/[ -]/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** A field Herald never stores. */
export function isSecretField(field: Pick<SiteFormField, 'name' | 'type' | 'value'>): boolean {
  return (
    secretTypes.has(field.type.toLowerCase()) ||
    secretName.test(field.name) ||
    looksLikeCardNumber(field.value.trim())
  );
}

/** The fields kept, by name (a repeated name, as checkboxes send, keeps its values joined by commas). */
export function keptValues(fields: SiteFormField[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of fields) {
    if (isSecretField(field)) continue;
    const value = field.value.trim();
    values[field.name] =
      Object.hasOwn(values, field.name) && values[field.name] !== ''
        ? `${values[field.name]},${value}`
        : value;
  }
  return values;
}

/** The page a form sits on: origin and path, without query or fragment. */
export function normaliseFormUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** A page view's address without Herald's identity parameter and the fragment. */
export function normalisePageUrl(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('hrld_id');
  parsed.hash = '';
  return parsed.toString();
}

/** What identifies a form: the page, its name and its sorted field names (its id is kept beside). */
export interface FormShape {
  id: string | null;
  name: string | null;
  fields: string[];
}

export function formShape(
  form: { id?: string | undefined; name?: string | undefined },
  fields: SiteFormField[],
): FormShape {
  const names = [...new Set(fields.filter((f) => !isSecretField(f)).map((f) => f.name))].sort();
  return { id: form.id?.trim() || null, name: form.name?.trim() || null, fields: names };
}

/** 16 hex characters over the page, the form's id, name and field names, whatever order the fields came in. */
export function formHash(url: string, shape: FormShape): string {
  return crypto
    .createHash('sha256')
    .update(JSON.stringify([url, shape.id, shape.name, shape.fields]))
    .digest('hex')
    .slice(0, 16);
}

/** The key of a form's entry in formFieldMappings: its id when it has one, else its hash. */
export function formKey(shape: FormShape, hash: string): string {
  return shape.id ?? hash;
}

/**
 * The email that identifies the submitter: the field mapped to `email`, else an email-type field, else a field
 * named like "email"; only a valid address counts.
 */
export function emailOf(
  fields: SiteFormField[],
  values: Record<string, string>,
  mapping: Record<string, string> | undefined,
): string | undefined {
  const candidates = [
    ...Object.entries(mapping ?? {})
      .filter(([, personField]) => personField === 'email')
      .map(([name]) => name),
    ...fields.filter((f) => f.type.toLowerCase() === 'email').map((f) => f.name),
    ...fields.filter((f) => /e-?mail/i.test(f.name)).map((f) => f.name),
  ];
  for (const name of candidates) {
    const value = values[name]?.trim();
    if (value && emailSchema.safeParse(value).success) return value.toLowerCase();
  }
  return undefined;
}

/** Person values from a form's kept values through its mapping; email is the identity, not a value to write, and empty values are skipped. */
export function mappedValues(
  values: Record<string, string>,
  mapping: Record<string, string> | undefined,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [formField, personField] of Object.entries(mapping ?? {})) {
    const value = values[formField];
    if (personField && personField !== 'email' && value !== undefined && value !== '')
      result[personField] = value;
  }
  return result;
}
