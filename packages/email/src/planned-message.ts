import {
  base64Wins,
  encodeBody,
  escapeQp,
  joinPieces,
  mimePieces,
  qpLines,
  type EncodedPieces,
  type MimePieces,
} from './mime.ts';
import {
  lines,
  qpStats,
  softBreak,
  type EmailPlan,
  type PartPlan,
  type PlannedMessageOptions,
} from './message-plan.ts';
import {
  collapseBlankLines,
  escapeAttribute,
  headersFor,
  linkRewriterOf,
  openPixelOf,
  ownLinksOf,
  renderCompiled,
  rewriteHtmlLinks,
  startRendering,
  textUrlPattern,
} from './render.ts';
import type { RenderAccount, RenderOptions, RenderPerson } from './types.ts';

/**
 * Writing one person's message from an email's plan (message-plan.ts): render the merge tags and the edges, rewrite
 * their links, and join their quoted-printable lines with the stretches' lines made once per send.
 */

/** The pieces between a part's markers, or null when they did not all come back in order. */
function between(rendered: string, markers: string[]): string[] | null {
  const pieces: string[] = [];
  let at = 0;
  for (const marker of markers) {
    const found = rendered.indexOf(marker, at);
    if (found < 0) return null;
    pieces.push(rendered.slice(at, found));
    at = found + marker.length;
  }
  pieces.push(rendered.slice(at));
  return pieces;
}

/**
 * A part's body from its per-message pieces (`own[i]` comes before stretch i) and its stretches. `prefix` is the
 * raw text of the message's link prefix in this part; `maybe` resolves a text link the plan could not settle.
 */
function bodyOf(
  part: PartPlan,
  own: string[],
  prefix: string,
  maybe: (url: string) => string,
): EncodedPieces {
  const escapedOwn = own.map((piece) => escapeQp(piece));
  let rare = part.rare || escapedOwn.some((e) => e.rare);
  const prefixes = part.stretches.reduce((n, s) => n + s.prefixes, 0);
  const prefixEscaped = prefixes && prefix ? escapeQp(prefix) : null;
  if (prefixEscaped?.rare) rare = true;
  const maybes: string[] = [];
  for (const stretch of part.stretches)
    for (const piece of stretch.pieces) {
      if (piece.kind !== 'maybe') continue;
      const resolved = maybe(piece.url);
      maybes.push(resolved);
      if (!rare && /[^\x09\x0a\x0d\x20-\x7e]/.test(resolved)) rare = true;
    }
  const raw = () => {
    let m = 0;
    let out = own[0]!;
    part.stretches.forEach((stretch, i) => {
      for (const piece of stretch.pieces)
        out += piece.kind === 'text' ? piece.raw : piece.kind === 'prefix' ? prefix : maybes[m++]!;
      out += own[i + 1]!;
    });
    return out;
  };
  if (rare) {
    // The base64 choice counts the whole text's escapes and bytes: the stretches' are known, the rest are counted now.
    let escapes = part.escapes;
    let bytes = part.bytes;
    const add = (text: string) => {
      const stats = qpStats(text);
      escapes += stats.escapes;
      bytes += stats.bytes;
    };
    own.forEach(add);
    maybes.forEach(add);
    if (prefix) for (let i = 0; i < prefixes; i++) add(prefix);
    if (base64Wins(escapes, bytes)) {
      const { encoding, body } = encodeBody(raw());
      return { encoding, pieces: [body] };
    }
  }
  // Only the very end of the body needs its last space escaped: the last per-message piece, or else a stretch,
  // which ends in a `>` or a cut character. Segments are joined by soft line breaks: `pieces` holds each with the
  // break before it, and the stretches' text is the plan's own strings, made once for the whole send.
  const pieces: string[] = [];
  const push = (segment: string) => pieces.push(pieces.length ? softBreak + segment : segment);
  const prefixLines = prefixEscaped ? qpLines(prefixEscaped.escaped) : '';
  const prefixJoined = softBreak + prefixLines;
  let m = 0;
  const pushOwn = (i: number) => {
    let escaped = escapedOwn[i]!.escaped;
    if (i === own.length - 1 && escaped.endsWith(' ')) escaped = `${escaped.slice(0, -1)}=20`;
    if (escaped) push(qpLines(escaped));
  };
  pushOwn(0);
  part.stretches.forEach((stretch, i) => {
    for (const piece of stretch.pieces) {
      if (piece.kind === 'text') pieces.push(pieces.length ? piece.joined : piece.qp);
      else if (piece.kind === 'prefix') {
        if (prefixLines) pieces.push(pieces.length ? prefixJoined : prefixLines);
      } else {
        const resolved = maybes[m++]!;
        if (resolved) push(lines(resolved));
      }
    }
    pushOwn(i + 1);
  });
  return { encoding: 'quoted-printable', pieces };
}

/** The plan's link rewriting as renderCompiled takes it: UTM tags, then the message's prefix and each destination's suffix. */
function linkOptionsOf(plan: EmailPlan, prefix: string): Pick<RenderOptions, 'utmCampaign' | 'rewriteLink'> {
  const { tracking, utmCampaign } = plan.options;
  return {
    ...(utmCampaign !== undefined ? { utmCampaign } : {}),
    ...(tracking
      ? {
          rewriteLink: (url: string) => {
            const suffix = tracking.suffixFor(url);
            return suffix === null ? url : prefix + suffix;
          },
        }
      : {}),
  };
}

/** The same message the long way: renderCompiled, then what toMime writes. */
function writeInFull(
  plan: EmailPlan,
  person: RenderPerson,
  account: RenderAccount,
  options: PlannedMessageOptions,
): { message: MimePieces; subject: string } {
  const rendered = renderCompiled(plan.compiled, person, account, {
    ...options,
    ...linkOptionsOf(plan, options.linkPrefix ?? ''),
  });
  const text = encodeBody(rendered.text);
  const html = encodeBody(rendered.html);
  return {
    subject: rendered.subject,
    message: mimePieces(
      { ...options.mime, subject: rendered.subject, messageId: options.messageId, headers: rendered.headers },
      { encoding: text.encoding, pieces: [text.body] },
      { encoding: html.encoding, pieces: [html.body] },
    ),
  };
}

/**
 * One person's message as MIME, decoding to exactly what toMime(renderCompiled(...)) writes with the plan's link
 * rewriting (UTM tags, then `linkPrefix` + the destination's suffix). Throws what renderCompiled throws.
 */
export function writePlanned(
  plan: EmailPlan,
  person: RenderPerson,
  account: RenderAccount,
  options: PlannedMessageOptions,
): { mime: string; subject: string } {
  const { message, subject } = writePlannedPieces(plan, person, account, options);
  return { mime: joinPieces(message), subject };
}

/** writePlanned's message in pieces (mimePieces): what an SMTP connection writes without joining them. */
export function writePlannedPieces(
  plan: EmailPlan,
  person: RenderPerson,
  account: RenderAccount,
  options: PlannedMessageOptions,
): { message: MimePieces; subject: string } {
  const { tracking } = plan.options;
  const prefix = tracking ? (options.linkPrefix ?? '') : '';
  const own = ownLinksOf(options);
  // Herald's own links are never rewritten: one that a stretch holds (a constant view-in-browser link) is written the long way.
  for (const original of own)
    if (plan.staticLinks.has(original.replaceAll('&amp;', '&')))
      return writeInFull(plan, person, account, options);
  const rendering = startRendering(plan.compiled, person, account, options, plan);
  const htmlPieces = between(rendering.html(plan.html.templates, plan.html.fast), plan.html.markers);
  if (!htmlPieces) return writeInFull(plan, person, account, options);
  rendering.checkLength(
    htmlPieces.reduce((n, piece) => n + piece.length, 0) +
      plan.html.stretches.reduce((n, s) => n + s.renderedLength, 0),
  );
  const textPieces = between(rendering.text(plan.text.templates, plan.text.fast), plan.text.markers);
  if (!textPieces) return writeInFull(plan, person, account, options);

  // Links of the per-message HTML pieces, with the rewriter renderCompiled would use.
  const rewrite = linkRewriterOf(linkOptionsOf(plan, prefix));
  const rewritten = new Map<string, string>();
  const counter = { index: 0 };
  const html = rewrite
    ? htmlPieces.map((piece) => rewriteHtmlLinks(piece, rewrite, own, rewritten, counter))
    : htmlPieces;
  if (options.openPixelUrl) {
    // Before the last `</body` (the plan keeps every stretch's last one out of it), else at the end.
    const pixel = openPixelOf(options.openPixelUrl);
    let placed = false;
    for (const tag of ['</body', '</BODY']) {
      for (let i = html.length - 1; i >= 0 && !placed; i--) {
        const at = html[i]!.lastIndexOf(tag);
        if (at >= 0) {
          html[i] = html[i]!.slice(0, at) + pixel + html[i]!.slice(at);
          placed = true;
        }
      }
      if (placed) break;
    }
    if (!placed) html[html.length - 1] += pixel;
  }

  // The text part: its links become what the HTML's became; blank lines collapse; the whole is trimmed.
  const staticLink = (url: string): string | undefined => {
    const link = plan.staticLinks.get(url);
    return link === undefined ? undefined : link.suffix === null ? link.target : prefix + link.suffix;
  };
  const textRewriting = rewrite !== null && (rewritten.size > 0 || plan.staticLinks.size > 0);
  const text = textPieces.map((piece, i) => {
    let out = textRewriting
      ? piece.replace(textUrlPattern, (url) => rewritten.get(url) ?? staticLink(url) ?? url)
      : piece;
    out = collapseBlankLines(out);
    if (i === 0) out = out.trimStart();
    if (i === textPieces.length - 1) out = out.trimEnd();
    return out;
  });

  const htmlBody = bodyOf(plan.html, html, escapeAttribute(prefix), () => '');
  const textBody = bodyOf(plan.text, text, prefix, (url) => rewritten.get(url) ?? url);
  return {
    subject: rendering.subject,
    message: mimePieces(
      {
        ...options.mime,
        subject: rendering.subject,
        messageId: options.messageId,
        headers: headersFor(options),
      },
      textBody,
      htmlBody,
    ),
  };
}
