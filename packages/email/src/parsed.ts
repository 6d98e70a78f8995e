import type { Template } from 'liquidjs';
import { toTemplateError, type EmailPart } from './errors.ts';
import { htmlEngine, textEngine } from './liquid.ts';

/** The scope key the rendered preheader travels in; not a merge tag anyone documents. */
export const preheaderSlot = 'herald_preheader_';

/** An email's templates as text, after the once-per-email work (CSS inlined, text part derived). */
export interface EmailSources {
  subject: string;
  preheader: string;
  /** The document with CSS inlined and the hidden preheader slot after `<body>`. */
  html: string;
  /** The plain-text part, derived from the HTML once. */
  text: string;
}

/** An email parsed once and reused for every person: the work that does not depend on who receives it. */
export interface CompiledEmail {
  subject: Template[];
  preheader: Template[];
  html: Template[];
  text: Template[];
}

function parse(engine: typeof htmlEngine, part: EmailPart, source: string): Template[] {
  try {
    return engine.parse(source);
  } catch (error) {
    throw toTemplateError(part, error);
  }
}

/** Parse sources that `compileSources` produced (cheap: Liquid only). */
export function parseSources(sources: EmailSources): CompiledEmail {
  return {
    subject: parse(textEngine, 'subject', sources.subject),
    preheader: parse(htmlEngine, 'preheader', sources.preheader),
    html: parse(htmlEngine, 'html', sources.html),
    text: parse(textEngine, 'html', sources.text),
  };
}
