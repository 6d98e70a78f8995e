import { TokenKind, type Template } from 'liquidjs';
import type { htmlEngine } from './liquid.ts';

/**
 * A faster reading of the merge tags most emails hold, for bulk sends (message-plan.ts): static markup and outputs
 * like `{{ person.firstName | default: "there" }}` — a variable path, `default` with a quoted text, `raw`, and the
 * HTML engine's own escaping — written out directly instead of through Liquid's renderer, which costs more per
 * message than all the rest of the planned writing.
 *
 * It reads exactly as Liquid does (own properties only; nil prints nothing; `default` takes over for nil, false
 * and empty text; escaping as Liquid's `escape`), which a property test holds against Liquid itself. Templates with
 * anything else (tags, other filters, literals, `size`/`first`/`last`) get no fast reading; a value on the way that
 * is not a plain object, or a value that is not text, a number, a boolean or nil, makes the reading give up for that
 * message (null), and the caller renders with Liquid.
 */
export type FastTemplate = (scope: Record<string, unknown>) => string | null;

type Step = string | { path: string[]; fallback: string | null; escape: boolean };

/** Keys Liquid reads specially (sizes, ends of lists): left to Liquid. */
const specialKeys = new Set(['size', 'first', 'last']);

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&#34;',
  "'": '&#39;',
};
const escapable = /[&<>"']/;
const escapeHtml = (text: string) =>
  escapable.test(text) ? text.replace(/[&<>"']/g, (c) => escapes[c]!) : text;

interface OutputShape {
  value: {
    initial: {
      postfix: { kind: number; variable?: unknown; props?: { kind: number; content?: unknown }[] }[];
    };
    filters: { name: string; handler: unknown; raw: boolean; args: unknown[] }[];
  };
}

function stepOf(template: Template, engine: typeof htmlEngine): Step | null {
  const kind = (template as unknown as { token?: { kind?: number } }).token?.kind;
  if (kind === TokenKind.HTML) {
    const str = (template as unknown as { str?: unknown }).str;
    return typeof str === 'string' ? str : null;
  }
  if (kind !== TokenKind.Output) return null;
  const value = (template as unknown as OutputShape).value;
  const postfix = value?.initial?.postfix;
  if (!Array.isArray(postfix) || postfix.length !== 1) return null;
  const access = postfix[0]!;
  if (
    access.kind !== TokenKind.PropertyAccess ||
    access.variable !== undefined ||
    !Array.isArray(access.props) ||
    access.props.length === 0
  )
    return null;
  const path: string[] = [];
  for (const prop of access.props) {
    if ((prop.kind !== TokenKind.Word && prop.kind !== TokenKind.Quoted) || typeof prop.content !== 'string')
      return null;
    if (specialKeys.has(prop.content)) return null;
    path.push(prop.content);
  }
  let fallback: string | null = null;
  let escape = false;
  const filters = value.filters;
  for (let i = 0; i < filters.length; i++) {
    const filter = filters[i]!;
    const last = i === filters.length - 1;
    if (filter.handler === engine.options.outputEscape && last && filter.args.length === 0) escape = true;
    else if (filter.name === 'raw' && last && filter.raw && filter.args.length === 0) escape = false;
    else if (filter.name === 'default' && i === 0 && filter.args.length === 1) {
      const arg = filter.args[0] as { kind?: number; content?: unknown };
      if (Array.isArray(arg) || arg.kind !== TokenKind.Quoted || typeof arg.content !== 'string') return null;
      fallback = arg.content;
    } else return null;
  }
  return { path, fallback, escape };
}

/** A fast reading of templates, or null when they hold anything it does not read exactly as Liquid does. */
export function fastTemplate(engine: typeof htmlEngine, templates: Template[]): FastTemplate | null {
  const steps: Step[] = [];
  for (const template of templates) {
    const step = stepOf(template, engine);
    if (step === null) return null;
    steps.push(step);
  }
  return (scope) => {
    let out = '';
    for (const step of steps) {
      if (typeof step === 'string') {
        out += step;
        continue;
      }
      let value: unknown = scope;
      for (const key of step.path) {
        if (value === null || value === undefined) break;
        if (typeof value !== 'object' || Array.isArray(value)) return null;
        value = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
      }
      let text: string;
      if (typeof value === 'string') text = value === '' && step.fallback !== null ? step.fallback : value;
      else if (value === null || value === undefined || value === false)
        text = step.fallback ?? (value === false ? 'false' : '');
      else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
      else return null;
      out += step.escape ? escapeHtml(text) : text;
    }
    return out;
  };
}
