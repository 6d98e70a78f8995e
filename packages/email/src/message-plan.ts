import crypto from 'node:crypto';
import { TokenKind, type Template } from 'liquidjs';
import type { CompiledEmail } from './parsed.ts';
import { fastTemplate, type FastTemplate } from './fast-liquid.ts';
import { htmlEngine, textEngine } from './liquid.ts';
import { escapeQp, qpLines, type MimeMessage } from './mime.ts';
import { collapseBlankLines, escapeAttribute, hrefPattern, textUrlPattern, withUtm } from './render.ts';
import type { RenderOptions } from './types.ts';

/**
 * Planned writing: the MIME of a bulk send without redoing, for every recipient, the work that is the same for all
 * of them.
 *
 * renderCompiled + toMime turn each message's whole HTML and text (tens of kilobytes) over several times: Liquid
 * output, a link-rewriting scan, a quoted-printable scan, escaping and line breaking. Most of that text is the
 * email's static markup. A plan does that work once per email for every long static stretch of the templates:
 *
 * - Each top-level static piece of the HTML and text templates is cut where nothing per-message can reach across:
 *   in the HTML after a `>` (no rewritten link holds one, render.ts hrefPattern), in the text after a character no
 *   link holds and that is no space or line break. Its middle (the stretch) is replaced in the templates by a
 *   marker; its edges stay and render with the merge tags around them.
 * - A stretch's links are rewritten once: UTM tags, and the tracked form cut into the message's prefix (the click
 *   URL with the message token) and the destination's constant suffix. It is escaped and broken into
 *   quoted-printable lines once.
 * - Per message, Liquid renders only the merge tags and the edges; the pieces between markers go through the same
 *   link rewriting, open pixel, blank-line and trimming rules as renderCompiled, and the body is the stretches'
 *   lines and the pieces' lines joined by soft line breaks (`=` CRLF, which decoders remove).
 *
 * The result decodes to exactly what toMime(renderCompiled(...)) writes (a property test holds the two equal); only
 * where soft line breaks fall differs. When a message's text would go better as base64, or its markers do not come
 * back in order, that part (or the whole message) is written the long way.
 */

/** How a send tracks links: each tracked link is the message's prefix followed by a suffix of its destination alone. */
export interface LinkTracking {
  /** The constant end of a destination's tracked link (after UTM tagging), or null to leave the link untracked. */
  suffixFor(target: string): string | null;
}

export interface PlanOptions {
  /** Automatic UTM tagging (the account's linkUTMs), as in RenderOptions. */
  utmCampaign?: string;
  tracking?: LinkTracking;
}

/** What a planned message takes beyond the person: RenderOptions less the link rewriting, which the plan holds. */
export interface PlannedMessageOptions extends Omit<RenderOptions, 'rewriteLink' | 'utmCampaign'> {
  /** The message's start of every tracked link (click URL and message token); needed when the plan tracks links. */
  linkPrefix?: string;
  mime: Pick<MimeMessage, 'from' | 'to' | 'replyTo' | 'date'>;
}

/**
 * A piece of a stretch: text (raw, and as quoted-printable lines, also with the soft line break that joins it to
 * what comes before), the message's link prefix, or a text-part link that depends on the message.
 */
type Piece =
  | { kind: 'text'; raw: string; qp: string; joined: string }
  | { kind: 'prefix' }
  | { kind: 'maybe'; url: string };

/** What joins the quoted-printable lines of a part's segments: a soft line break. */
export const softBreak = '=\r\n';

interface Stretch {
  pieces: Piece[];
  /** Characters the stretch had before its links were rewritten (for the output limit). */
  renderedLength: number;
  prefixes: number;
}

export interface PartPlan {
  templates: Template[];
  /** The templates' fast reading, when they have one (fast-liquid.ts). */
  fast: FastTemplate | null;
  markers: string[];
  stretches: Stretch[];
  /** Escape statistics of the stretches' text pieces (the base64 choice needs them when a message has rare bytes). */
  rare: boolean;
  escapes: number;
  bytes: number;
}

export interface EmailPlan {
  compiled: CompiledEmail;
  options: PlanOptions;
  html: PartPlan;
  text: PartPlan;
  /** The destinations of the stretches' HTML links: original → the target (after UTM) and its tracked suffix. */
  staticLinks: Map<string, { target: string; suffix: string | null }>;
  /** Fast readings of the subject and preheader, when they have one. */
  subject: FastTemplate | null;
  preheader: FastTemplate | null;
}

/** Stretches shorter than this stay in the templates: a marker and two soft breaks would cost more than they save. */
const minStretch = 160;

/** UTF-8 bytes and quoted-printable escapes of a text, as toMime's base64 choice counts them. */
export function qpStats(raw: string): { rare: boolean; escapes: number; bytes: number } {
  const qp = escapeQp(raw);
  if (qp.rare) return { rare: true, escapes: qp.escapes, bytes: qp.bytes };
  let escapes = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 61 || c === 10 || c === 13 || c === 9) escapes++;
  }
  return { rare: false, escapes, bytes: raw.length };
}

export const lines = (raw: string) => qpLines(escapeQp(raw).escaped);

/** Where a static HTML piece may be cut: after its first `>` and after the last `>` before its last `</body` (the pixel's place stays per message). */
function htmlCut(str: string): [number, number] | null {
  let limit = str.length;
  const lower = str.lastIndexOf('</body');
  const upper = str.lastIndexOf('</BODY');
  if (lower >= 0) limit = Math.min(limit, lower);
  if (upper >= 0) limit = Math.min(limit, upper);
  const start = str.indexOf('>') + 1;
  const end = limit > 0 ? str.lastIndexOf('>', limit - 1) + 1 : 0;
  return start > 0 && end - start >= minStretch ? [start, end] : null;
}

/** Characters no text-part link holds that are not white space: a text stretch starts and ends right after one. */
const textCutChars = new Set([...'[]<>"\')']);

function textCut(str: string): [number, number] | null {
  let start = -1;
  for (let i = 0; i < str.length; i++) {
    if (textCutChars.has(str[i]!)) {
      start = i + 1;
      break;
    }
  }
  let end = -1;
  for (let i = str.length - 1; i >= 0; i--) {
    if (textCutChars.has(str[i]!)) {
      end = i + 1;
      break;
    }
  }
  return start > 0 && end - start >= minStretch ? [start, end] : null;
}

/** A static template's text, when it is one (an HTML token of Liquid: written out as it is). */
function staticText(template: Template): string | null {
  const t = template as unknown as { token?: { kind?: number }; str?: unknown };
  return t.token?.kind === TokenKind.HTML && typeof t.str === 'string' ? t.str : null;
}

function planPart(
  engine: typeof htmlEngine,
  templates: Template[],
  cut: (str: string) => [number, number] | null,
  piecesOf: (stretch: string) => Piece[],
): PartPlan {
  const nonce = crypto.randomBytes(8).toString('hex');
  const plan: PartPlan = {
    templates: [],
    fast: null,
    markers: [],
    stretches: [],
    rare: false,
    escapes: 0,
    bytes: 0,
  };
  for (const template of templates) {
    const str = staticText(template);
    const at = str === null ? null : cut(str);
    if (str === null || at === null) {
      plan.templates.push(template);
      continue;
    }
    const marker = `\u0001${nonce}.${plan.markers.length}\u0002`;
    const replaced = `${str.slice(0, at[0])}${marker}${str.slice(at[1])}`;
    let parsed: Template[] = [];
    try {
      parsed = engine.parse(replaced);
    } catch {
      // kept whole below
    }
    if (parsed.length !== 1 || staticText(parsed[0]!) !== replaced) {
      plan.templates.push(template);
      continue;
    }
    const pieces = piecesOf(str.slice(at[0], at[1]));
    for (const piece of pieces) {
      if (piece.kind !== 'text') continue;
      const stats = qpStats(piece.raw);
      plan.rare ||= stats.rare;
      plan.escapes += stats.escapes;
      plan.bytes += stats.bytes;
    }
    plan.templates.push(parsed[0]!);
    plan.markers.push(marker);
    plan.stretches.push({
      pieces,
      renderedLength: at[1] - at[0],
      prefixes: pieces.filter((p) => p.kind === 'prefix').length,
    });
  }
  plan.fast = fastTemplate(engine, plan.templates);
  return plan;
}

/** Adjacent text joined, each text piece escaped and in lines once. */
function finish(
  pieces: ({ kind: 'text'; raw: string } | { kind: 'prefix' } | { kind: 'maybe'; url: string })[],
): Piece[] {
  const out: Piece[] = [];
  let text = '';
  const flush = () => {
    if (text) {
      const qp = lines(text);
      out.push({ kind: 'text', raw: text, qp, joined: softBreak + qp });
    }
    text = '';
  };
  for (const piece of pieces) {
    if (piece.kind === 'text') text += piece.raw;
    else {
      flush();
      out.push(piece);
    }
  }
  flush();
  return out;
}

/** Plan an email for a bulk send (once per email and send, before its first message). */
export function planEmail(compiled: CompiledEmail, options: PlanOptions): EmailPlan {
  const staticLinks: EmailPlan['staticLinks'] = new Map();
  const rewriting = options.utmCampaign !== undefined || options.tracking !== undefined;
  const html = planPart(htmlEngine, compiled.html, htmlCut, (stretch) => {
    if (!rewriting) return finish([{ kind: 'text', raw: stretch }]);
    const pieces: Parameters<typeof finish>[0] = [];
    let last = 0;
    for (const match of stretch.matchAll(hrefPattern)) {
      const [whole, prefix, quote, url] = match as unknown as [string, string, string, string];
      const original = url.includes('&amp;') ? url.replaceAll('&amp;', '&') : url;
      let link = staticLinks.get(original);
      if (!link) {
        const target = options.utmCampaign !== undefined ? withUtm(original, options.utmCampaign) : original;
        link = { target, suffix: options.tracking ? options.tracking.suffixFor(target) : null };
        staticLinks.set(original, link);
      }
      pieces.push({ kind: 'text', raw: stretch.slice(last, match.index) + prefix + quote });
      if (link.suffix === null) pieces.push({ kind: 'text', raw: escapeAttribute(link.target) + quote });
      else pieces.push({ kind: 'prefix' }, { kind: 'text', raw: escapeAttribute(link.suffix) + quote });
      last = match.index + whole.length;
    }
    pieces.push({ kind: 'text', raw: stretch.slice(last) });
    return finish(pieces);
  });
  const text = planPart(textEngine, compiled.text, textCut, (stretch) => {
    const collapsed = collapseBlankLines(stretch);
    if (!rewriting) return finish([{ kind: 'text', raw: collapsed }]);
    const pieces: Parameters<typeof finish>[0] = [];
    let last = 0;
    for (const match of collapsed.matchAll(textUrlPattern)) {
      const url = match[0];
      pieces.push({ kind: 'text', raw: collapsed.slice(last, match.index) });
      const link = staticLinks.get(url);
      if (!link) pieces.push({ kind: 'maybe', url });
      else if (link.suffix === null) pieces.push({ kind: 'text', raw: link.target });
      else pieces.push({ kind: 'prefix' }, { kind: 'text', raw: link.suffix });
      last = match.index + url.length;
    }
    pieces.push({ kind: 'text', raw: collapsed.slice(last) });
    return finish(pieces);
  });
  return {
    compiled,
    options,
    html,
    text,
    staticLinks,
    subject: fastTemplate(textEngine, compiled.subject),
    preheader: fastTemplate(htmlEngine, compiled.preheader),
  };
}
