import type { Template } from 'liquidjs';
import { preheaderSlot, type CompiledEmail } from './parsed.ts';
import type { FastTemplate } from './fast-liquid.ts';
import { TemplateError, toTemplateError, type EmailPart } from './errors.ts';
import { htmlEngine, textEngine, defaultLimits } from './liquid.ts';
import type { RenderAccount, RenderedMessage, RenderOptions, RenderPerson } from './types.ts';

type Engine = typeof htmlEngine;

/** Keys that would change how a value prints or where its prototype points. */
const unsafeKeys = new Set([
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'toJSON',
  'toLiquid',
  'then',
]);

/**
 * Person data as plain values: objects and lists copied without keys that would take over how a
 * value prints, and with an ordinary prototype, so no stored value can break rendering.
 */
export function plain(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object')
    return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  if (value instanceof Date) return value.toISOString();
  if (depth > 8) return undefined;
  if (Array.isArray(value)) return value.map((item) => plain(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    if (!unsafeKeys.has(key)) copy[key] = plain(item, depth + 1);
  return copy;
}

export function run(
  engine: Engine,
  part: EmailPart,
  templates: Template[],
  scope: object,
  renderLimit: number,
): string {
  try {
    return engine.renderSync(templates, scope, { renderLimit }) as string;
  } catch (error) {
    throw toTemplateError(part, error);
  }
}

/**
 * href="http(s)://..." in rendered HTML, quoted either way. A URL with a raw `<` or `>` (never valid in a URL;
 * browsers escape them) is left as written: no match holds either, so a match never crosses a `>`, and the
 * planned writing (message-plan.ts) may treat the HTML between two `>` as a piece of its own.
 */
export const hrefPattern = /(\shref\s*=\s*)(["'])(https?:\/\/[^"'<>]*)\2/gi;

/** Automatic UTM tagging: source, medium and campaign added to a link that does not carry its own. */
export function withUtm(url: string, campaign: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.searchParams.has('utm_source')) return url;
    parsed.searchParams.set('utm_source', 'herald');
    parsed.searchParams.set('utm_medium', 'email');
    parsed.searchParams.set('utm_campaign', campaign);
    return parsed.toString();
  } catch {
    return url;
  }
}

/** The link rewriter of a rendering: UTM tags, then `rewriteLink`; null when links stay as written. */
export function linkRewriterOf(
  options: Pick<RenderOptions, 'utmCampaign' | 'rewriteLink'>,
): ((url: string, index: number) => string) | null {
  const utm = options.utmCampaign;
  if (utm === undefined) return options.rewriteLink ?? null;
  return (url: string, index: number) =>
    (options.rewriteLink ?? ((same: string) => same))(withUtm(url, utm), index);
}

/** Herald's own links (unsubscribe, preferences, view in browser), as they stand in the HTML: never rewritten. */
export function ownLinksOf(options: RenderOptions): Set<string> {
  return new Set(
    [options.unsubscribeUrl, options.preferencesUrl, options.viewInBrowserUrl]
      .filter(Boolean)
      .map((url) => escapeAttribute(url!)),
  );
}

/**
 * The links of a piece of HTML through `rewrite`, numbered on from `counter.index`; what each original link
 * became goes into `rewritten` (the first time it is seen), so the text part can carry the same links.
 */
export function rewriteHtmlLinks(
  html: string,
  rewrite: (url: string, index: number) => string,
  own: Set<string>,
  rewritten: Map<string, string>,
  counter = { index: 0 },
): string {
  return html.replace(hrefPattern, (match, prefix: string, quote: string, url: string) => {
    if (own.has(url)) return match;
    const original = url.includes('&amp;') ? url.replaceAll('&amp;', '&') : url;
    const next = rewrite(original, counter.index++);
    if (!rewritten.has(original)) rewritten.set(original, next);
    return `${prefix}${quote}${escapeAttribute(next)}${quote}`;
  });
}

/**
 * Links of the HTML through the rewriter (UTM tags, then tracking), numbered in order. Gives the HTML and what each
 * original link became, so the text part can carry the same links without numbering them again.
 */
function rewriteLinks(
  html: string,
  options: RenderOptions,
): { html: string; rewritten: Map<string, string> | null } {
  const rewrite = linkRewriterOf(options);
  if (!rewrite) return { html, rewritten: null };
  const rewritten = new Map<string, string>();
  return { html: rewriteHtmlLinks(html, rewrite, ownLinksOf(options), rewritten), rewritten };
}

/** An http(s) URL in the text part, up to whitespace or the bracket, quote or angle that closes it. */
export const textUrlPattern = /https?:\/\/[^\s\]\[<>"')]+/g;

/** The text part's copies of the HTML's links become the same rewritten links; any other URL stays as written. */
function rewriteTextLinks(text: string, rewritten: Map<string, string> | null): string {
  if (!rewritten || rewritten.size === 0) return text;
  return text.replace(textUrlPattern, (url) => rewritten.get(url) ?? url);
}

/** The text part's finishing: at most one empty line in a row, no space around it. */
export const collapseBlankLines = (text: string) => text.replace(/\n{3,}/g, '\n\n');

/** Characters an attribute value escapes; most links (tracked ones always) have none, and are returned as they are. */
const attributeSpecial = /[&"'<>]/;

export function escapeAttribute(value: string): string {
  if (!attributeSpecial.test(value)) return value;
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * The open pixel: a 1x1 image with empty alt text that takes no room, put just before the last `</body>` (or at
 * the end of a fragment without one). One search from the end and one slice, no pattern over the whole HTML.
 */
export const openPixelOf = (url: string) =>
  `<img src="${escapeAttribute(url)}" alt="" width="1" height="1" border="0" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0;overflow:hidden;">`;

function withOpenPixel(html: string, url: string | undefined): string {
  if (!url) return html;
  const pixel = openPixelOf(url);
  let at = html.lastIndexOf('</body');
  if (at < 0) at = html.lastIndexOf('</BODY');
  return at < 0 ? html + pixel : html.slice(0, at) + pixel + html.slice(at);
}

/** Header values are one line: CR and LF would start a header of their own. */
export function oneLine(value: string): string {
  return value.replace(/[\r\n]+\s*/g, ' ').trim();
}

export function headersFor(options: RenderOptions): Record<string, string> {
  const headers: Record<string, string> = { 'Message-ID': oneLine(options.messageId) };
  const uris = [options.unsubscribeUrl, options.unsubscribeMailto]
    .filter((uri): uri is string => Boolean(uri))
    .map((uri) => `<${oneLine(uri)}>`);
  if (uris.length > 0) headers['List-Unsubscribe'] = uris.join(', ');
  // RFC 8058: one-click unsubscribe is a POST to an https URI; an http or mailto-only link does not qualify.
  if (options.unsubscribeUrl?.startsWith('https://'))
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  return headers;
}

/**
 * Render a compiled email for one person: merge tags (HTML-escaped in the HTML), the hidden preheader,
 * links through `rewriteLink`, and the headers mailbox providers ask for. Synchronous and pure.
 */
export function renderCompiled(
  compiled: CompiledEmail,
  person: RenderPerson,
  account: RenderAccount,
  options: RenderOptions,
): RenderedMessage {
  const rendering = startRendering(compiled, person, account, options);
  const html = rendering.html(compiled.html);
  rendering.checkLength(html.length);
  const text = rendering.text(compiled.text);
  const links = rewriteLinks(html, options);
  return {
    subject: rendering.subject,
    html: withOpenPixel(links.html, options.openPixelUrl),
    text: collapseBlankLines(rewriteTextLinks(text, links.rewritten)).trim(),
    headers: headersFor(options),
  };
}

/**
 * One person's rendering under one time budget: the scope, the subject and the preheader at once, then the HTML
 * and text templates given (the compiled ones, or a plan's, message-plan.ts).
 */
export function startRendering(
  compiled: CompiledEmail,
  person: RenderPerson,
  account: RenderAccount,
  options: RenderOptions,
  fast: { subject?: FastTemplate | null; preheader?: FastTemplate | null } = {},
) {
  const limits = { ...defaultLimits, ...options.limits };
  const scope: Record<string, unknown> = {
    person: plain(person),
    account: {
      name: account.name ?? '',
      mailingAddress: account.mailingAddress ?? '',
      site: account.site ?? '',
    },
    unsubscribe_url: options.unsubscribeUrl ?? '',
    preferences_url: options.preferencesUrl ?? '',
    view_in_browser_url: options.viewInBrowserUrl ?? '',
  };
  const started = performance.now();
  const remaining = () => Math.max(1, limits.renderMs - (performance.now() - started));
  // A fast reading (fast-liquid.ts) where the caller has one and it reads this person; Liquid otherwise.
  const subject = oneLine(
    fast.subject?.(scope) ?? run(textEngine, 'subject', compiled.subject, scope, remaining()),
  );
  scope[preheaderSlot] =
    fast.preheader?.(scope) ?? run(htmlEngine, 'preheader', compiled.preheader, scope, remaining());
  return {
    subject,
    html: (templates: Template[], quick?: FastTemplate | null) =>
      quick?.(scope) ?? run(htmlEngine, 'html', templates, scope, remaining()),
    text: (templates: Template[], quick?: FastTemplate | null) =>
      quick?.(scope) ?? run(textEngine, 'html', templates, scope, remaining()),
    /** The rendered HTML may not pass the output limit. */
    checkLength(length: number) {
      if (length > limits.outputLength) {
        throw new TemplateError(
          'html',
          undefined,
          `the rendered email is larger than ${limits.outputLength.toLocaleString('en-US')} characters`,
        );
      }
    },
  };
}
