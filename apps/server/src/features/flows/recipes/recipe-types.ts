import type { OperationKey, PersonFieldType, RecipeCategory, WaitConfig } from '@herald/contracts';
import { layout, row } from '../../emails/templates/layout.ts';

/**
 * How a recipe is written. Steps and emails have keys; a step's settings point at the recipe's emails, the account's
 * automatic segments and the team member creating the flow through placeholders that are filled in when the flow is
 * created (`{ $email: key }`, `{ $segment: autoType }`, `{ $me: true }`).
 */
export type RecipeEmail = {
  key: string;
  /** The email's name after the recipe's ("Welcome series: 1. Welcome"). */
  name: string;
  subject: string;
  preheader: string;
  html: string;
};

export type RecipeStep = {
  key: string;
  operationKey: OperationKey;
  config: Record<string, unknown>;
  x: number;
  y: number;
};
export type RecipeLink = { from: string; to: string; condition?: string };
/** A custom field the flow reads or writes, created with it when the account has none of that name. */
export type RecipeField = { name: string; title: string; type: PersonFieldType };

export type Recipe = {
  id: string;
  name: string;
  description: string;
  category: RecipeCategory;
  trigger: string;
  /** What the user picks before switching it on: the settings validateFlow will ask for. */
  toChoose: string[];
  reentryDays?: number;
  fields?: RecipeField[];
  emails: RecipeEmail[];
  steps: RecipeStep[];
  links: RecipeLink[];
};

/** Canvas places: one column is a step's width and a gap, one row the 170 px the editor puts between steps. */
const column = 300;
const rowHeight = 170;
const place = (col: number, line: number) => ({ x: 400 + col * column, y: 80 + line * rowHeight });

export const step = (
  key: string,
  operationKey: OperationKey,
  config: Record<string, unknown>,
  col: number,
  line: number,
): RecipeStep => ({ key, operationKey, config, ...place(col, line) });
export const sendStep = (key: string, email: string, col: number, line: number) =>
  step(key, '/send', { email: { id: { $email: email } } }, col, line);
export const waitStep = (key: string, amount: number, unit: 'hours' | 'days', col: number, line: number) =>
  step(key, '/delay-v2', { wait: { mode: 'duration', amount, unit } satisfies WaitConfig }, col, line);
export const endStep = (key: string, col: number, line: number) => step(key, '/end-flow', {}, col, line);
export const emailRef = (key: string) => ({ $email: key });
export const segmentRef = (autoType: string) => ({ $segment: autoType });

export const greeting = '{{ person.firstName | default: "there" }}';
export const site = '{{ account.site | default: "https://example.com" }}';

/** An email body in the starter templates' frame (footer with the mailing address, preferences and unsubscribe links). */
export function recipeHtml(
  title: string,
  accent: string,
  paragraphs: string[],
  button?: { label: string; href?: string },
): string {
  const body = paragraphs.map((p) => (p.startsWith('<') ? `        ${p}` : `        <p>${p}</p>`));
  if (button) body.push(`        <p><a class="button" href="${button.href ?? site}">${button.label}</a></p>`);
  body.push(
    `        <p class="muted">Reply to this email if anything is unclear: a person on our team reads every answer.</p>`,
  );
  return layout({ title, accent, rows: row(body.join('\n')) });
}
