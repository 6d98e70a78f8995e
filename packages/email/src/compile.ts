import juice from 'juice';
import { toTemplateError, type EmailPart } from './errors.ts';
import { htmlEngine, textEngine } from './liquid.ts';
import { textTemplateOf } from './text.ts';
import { parseSources, preheaderSlot, type CompiledEmail, type EmailSources } from './parsed.ts';
import { renderCompiled } from './render.ts';
import type {
  RenderAccount,
  RenderableEmail,
  RenderedMessage,
  RenderOptions,
  RenderPerson,
} from './types.ts';

export type { CompiledEmail, EmailSources } from './parsed.ts';

export { preheaderSlot };

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

function parse(engine: typeof htmlEngine, part: EmailPart, source: string): void {
  try {
    engine.parse(source);
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
 * Parse an email's merge tags (a TemplateError naming part and line when one is broken), inline its CSS and
 * derive its text part, and give the resulting templates as text (`parseSources` reads them again cheaply, in
 * a sender thread that loads neither the CSS inliner nor the text converter). Runs once per email.
 */
export function compileSources(email: RenderableEmail): EmailSources {
  const subject = email.subject.replace(/[\r\n]+/g, ' ');
  const preheader = email.preheader ?? '';
  parse(textEngine, 'subject', subject);
  parse(htmlEngine, 'preheader', preheader);
  parse(htmlEngine, 'html', email.html);
  // A `<` that opens no tag is text (as browsers read it); written as &lt; it cannot swallow a merge tag.
  const source = asDocument(email.html.replace(/<(?![a-zA-Z/!?])/g, '&lt;'));
  const inlined = inlineCss(source);
  try {
    const sources = { subject, preheader, html: withPreheaderSlot(inlined), text: textTemplateOf(inlined) };
    htmlEngine.parse(sources.html);
    textEngine.parse(sources.text);
    return sources;
  } catch {
    // Inlining moved a tag somewhere Liquid cannot read it: send the authored HTML without inlining.
    const sources = { subject, preheader, html: withPreheaderSlot(source), text: textTemplateOf(source) };
    parse(htmlEngine, 'html', sources.html);
    parse(textEngine, 'html', sources.text);
    return sources;
  }
}

/** Compile an email for rendering to many people: `compileSources` then `parseSources`. */
export function compileEmail(email: RenderableEmail): CompiledEmail {
  return parseSources(compileSources(email));
}

/** Compile and render in one step, for a single message; a broadcast compiles once and calls renderCompiled per person. */
export function render(
  email: RenderableEmail,
  person: RenderPerson,
  account: RenderAccount,
  options: RenderOptions,
): RenderedMessage {
  return renderCompiled(compileEmail(email), person, account, options);
}
