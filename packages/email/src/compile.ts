import type { Template } from 'liquidjs';
import juice from 'juice';
import { toTemplateError, type EmailPart } from './errors.ts';
import { htmlEngine, textEngine } from './liquid.ts';
import { textTemplateOf } from './text.ts';
import type { RenderableEmail } from './types.ts';

/** An email parsed once and reused for every person: the work that does not depend on who receives it. */
export interface CompiledEmail {
  subject: Template[];
  preheader: Template[];
  /** The document with CSS inlined and the hidden preheader slot after `<body>`. */
  html: Template[];
  /** The plain-text part, derived from the HTML once. */
  text: Template[];
}

/** The scope key the rendered preheader travels in; not a merge tag anyone documents. */
export const preheaderSlot = 'herald_preheader_';

// Juice leaves Liquid alone when its tags are code blocks: they are swapped out while the CSS is inlined.
const juiceBlocks = juice.codeBlocks as Record<string, { start: string; end: string }>;
for (const key of Object.keys(juiceBlocks)) delete juiceBlocks[key];
juiceBlocks.LIQUID_OUTPUT = { start: '{{', end: '}}' };
juiceBlocks.LIQUID_TAG = { start: '{%', end: '%}' };

const juiceOptions = {
  removeStyleTags: true,
  preserveMediaQueries: true,
  preserveFontFaces: true,
  preserveImportant: true,
  applyWidthAttributes: true,
  applyHeightAttributes: true,
  insertPreservedExtraCss: true,
};

/** A fragment (what a rich-text editor or a quick test gives) becomes a whole document; a document stays as written. */
export function asDocument(html: string): string {
  if (/<html[\s>]/i.test(html) || /<body[\s>]/i.test(html)) return html;
  return [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head>',
    `<body>${html}</body></html>`,
  ].join('\n');
}

/** The hidden preheader: inbox previews show it, the opened email does not; padding keeps body text out of the preview. */
const preheaderBlock =
  '<div style="display:none;font-size:1px;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;mso-hide:all">' +
  `{{ ${preheaderSlot} | raw }}${'&#847;&zwnj;&nbsp;'.repeat(40)}</div>`;

function withPreheaderSlot(document: string): string {
  const body = /<body[^>]*>/i.exec(document);
  if (!body) return preheaderBlock + document;
  const at = body.index + body[0].length;
  return document.slice(0, at) + preheaderBlock + document.slice(at);
}

function parse(engine: typeof htmlEngine, part: EmailPart, source: string): Template[] {
  try {
    return engine.parse(source);
  } catch (error) {
    throw toTemplateError(part, error);
  }
}

function inlineCss(document: string): string {
  try {
    return juice(document, juiceOptions);
  } catch {
    // CSS juice cannot read stays in its <style> block, where most clients still apply it.
    return document;
  }
}

/**
 * Parse an email's merge tags (a TemplateError naming part and line when one is broken), inline its
 * CSS and derive its text part. Everything here runs once per email, not once per person.
 */
export function compileEmail(email: RenderableEmail): CompiledEmail {
  const subject = parse(textEngine, 'subject', email.subject.replace(/[\r\n]+/g, ' '));
  const preheader = parse(htmlEngine, 'preheader', email.preheader ?? '');
  // Errors are reported against the HTML as written, so the line numbers are the author's.
  parse(htmlEngine, 'html', email.html);
  // A `<` that opens no tag is text (as browsers read it); written as &lt; it cannot swallow a merge tag.
  const source = asDocument(email.html.replace(/<(?![a-zA-Z/!?])/g, '&lt;'));
  const inlined = inlineCss(source);
  let html: Template[];
  let text: Template[];
  try {
    html = htmlEngine.parse(withPreheaderSlot(inlined));
    text = textEngine.parse(textTemplateOf(inlined));
  } catch {
    // Inlining moved a tag somewhere Liquid cannot read it: send the authored HTML without inlining.
    html = parse(htmlEngine, 'html', withPreheaderSlot(source));
    text = parse(textEngine, 'html', textTemplateOf(source));
  }
  return { subject, preheader, html, text };
}
