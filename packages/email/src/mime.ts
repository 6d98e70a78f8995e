import crypto from 'node:crypto';

/** A rendered message ready to be written as MIME. */
export interface MimeMessage {
  /** A whole From header value (`"Name" <address>` or an address). */
  from: string;
  to: string;
  replyTo?: string | null;
  subject: string;
  html: string;
  text: string;
  /** Message-ID, angle brackets included. */
  messageId: string;
  /** Extra headers (List-Unsubscribe…); Message-ID and the MIME headers here are ignored. */
  headers?: Record<string, string>;
  date?: Date;
}

const reserved = new Set([
  'message-id',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'from',
  'to',
  'subject',
  'date',
  'reply-to',
]);

/** RFC 2047: ASCII text as it is, anything else as UTF-8 base64 encoded-words short enough to fold. */
function encodeWords(value: string): string {
  const clean = value.replace(/[\r\n]+/g, ' ');
  if (/^[\x20-\x7e]*$/.test(clean)) return clean;
  const words: string[] = [];
  let chunk = '';
  for (const ch of clean) {
    // 45 bytes of UTF-8 make 60 base64 characters: each word stays under the 75 the RFC allows.
    if (Buffer.byteLength(chunk + ch) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join('\r\n ');
}

/** An address header: the display name encoded when it is not ASCII, the address kept as written. */
function encodeAddress(value: string): string {
  // `s`: a name may hold U+2028 or U+2029, which `.` alone does not match (the header then went out raw).
  const match = /^\s*"?(.*?)"?\s*<([^<>]+)>\s*$/s.exec(value.replace(/[\r\n]+/g, ' '));
  if (!match) return value.replace(/[\r\n]+/g, ' ').trim();
  const name = match[1]!.replace(/\\(["\\])/g, '$1');
  if (!name) return `<${match[2]}>`;
  const shown = /^[\x20-\x7e]*$/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}"` : encodeWords(name);
  return `${shown} <${match[2]}>`;
}

/** Fold a long structured header at its commas (lines of at most 998 characters, RFC 5322). */
function fold(value: string): string {
  const clean = value.replace(/[\r\n]+/g, ' ');
  if (clean.length <= 76) return clean;
  return clean.split(/,\s*/).join(',\r\n ');
}

/** Base64 in lines of 76 characters. */
function base64Lines(text: string): string {
  const encoded = Buffer.from(text, 'utf8').toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < encoded.length; i += 76) lines.push(encoded.slice(i, i + 76));
  return lines.join('\r\n');
}

const hex = (code: number) => `=${code < 16 ? '0' : ''}${code.toString(16).toUpperCase()}`;
/** Bytes quoted-printable must escape: controls, `=`, and everything past `~` (line breaks are escaped too). */
const unsafe = /[^\x20-\x3c\x3e-\x7e]/g;
const rare = /[^\x09\x0a\x0d\x20-\x7e]/;

/** A body (or a piece of one) with its quoted-printable escapes applied, not yet broken into lines. */
export interface QpEscaped {
  escaped: string;
  /** It holds bytes other than tab, line breaks and printable ASCII. */
  rare: boolean;
  /** Escapes written, counted in UTF-8 bytes: only known (and only needed) when `rare`. */
  escapes: number;
  /** UTF-8 bytes of the text: only known when `rare`. */
  bytes: number;
}

/**
 * Quoted-printable escapes of a text (line breaks escaped too, so the part decodes to exactly the characters
 * given). The common escapes (=, line breaks, tabs) are plain replacements; a callback only runs for text with
 * other bytes, whose escape count then decides between quoted-printable and base64 (encodeBody).
 */
export function escapeQp(text: string): QpEscaped {
  if (!rare.test(text)) {
    return {
      escaped: text
        .replaceAll('=', '=3D')
        .replaceAll('\n', '=0A')
        .replaceAll('\r', '=0D')
        .replaceAll('\t', '=09'),
      rare: false,
      escapes: 0,
      bytes: 0,
    };
  }
  // One character per byte: UTF-8 bytes as latin1 characters.
  const bytes = Buffer.from(text, 'utf8').toString('latin1');
  let escapes = 0;
  const escaped = bytes.replace(unsafe, (ch) => (escapes++, hex(ch.charCodeAt(0))));
  return { escaped, rare: true, escapes, bytes: bytes.length };
}

/** Text where more than one byte in six needs escaping goes as base64: quoted-printable would be larger. */
export const base64Wins = (escapes: number, bytes: number) => escapes * 6 > bytes;

/**
 * Escaped text in lines: soft breaks after at most 73 characters, never inside an =XX escape; a line that starts
 * with a dot starts =2E instead (so SMTP never needs to dot-stuff). Without the final line's soft break.
 */
export function qpLines(escaped: string): string {
  if (escaped.length <= 73) return escaped.charCodeAt(0) === 46 ? `=2E${escaped.slice(1)}` : escaped;
  const lines: string[] = [];
  let at = 0;
  while (at < escaped.length) {
    let end = at + 73;
    if (end >= escaped.length) end = escaped.length;
    else if (escaped.charCodeAt(end - 1) === 61) end -= 1;
    else if (escaped.charCodeAt(end - 2) === 61) end -= 2;
    lines.push(escaped.charCodeAt(at) === 46 ? `=2E${escaped.slice(at + 1, end)}` : escaped.slice(at, end));
    at = end;
  }
  return lines.join('=\r\n');
}

/** A part's body as it goes on the wire, with its Content-Transfer-Encoding. */
export interface EncodedBody {
  encoding: 'quoted-printable' | 'base64';
  body: string;
}

/**
 * A part's body and its transfer encoding. Mostly-ASCII text (what emails are) goes as quoted-printable, a
 * quarter smaller than base64 and readable on the wire; text where more than one byte in six would need
 * escaping goes as base64. Quoted-printable here escapes line breaks too (so the part decodes to exactly the
 * characters given), breaks lines softly at 76 characters, and never starts a line with a dot.
 */
export function encodeBody(text: string): EncodedBody {
  const qp = escapeQp(text);
  if (qp.rare && base64Wins(qp.escapes, qp.bytes)) return { encoding: 'base64', body: base64Lines(text) };
  const escaped = qp.escaped.endsWith(' ') ? `${qp.escaped.slice(0, -1)}=20` : qp.escaped;
  return { encoding: 'quoted-printable', body: qpLines(escaped) };
}

/**
 * A part's body in pieces whose concatenation is the body. A bulk send's planned writing (planned-message.ts)
 * keeps the stretches it encoded once as long-lived strings and writes each message from them, without copying
 * them into one string per message.
 */
export interface EncodedPieces {
  encoding: EncodedBody['encoding'];
  pieces: string[];
}

/**
 * A message as its header block and its body pieces: `head + body.join('')` is the message. The head ends with
 * the blank line. The body is ASCII (each part quoted-printable or base64), so it goes on the wire byte for byte.
 */
export interface MimePieces {
  head: string;
  body: string[];
}

/** The message a MimePieces stands for, as one string (what a DKIM signature or a mailbox needs). */
export const joinPieces = ({ head, body }: MimePieces): string => head + body.join('');

/**
 * The message as RFC 5322 / MIME text: multipart/alternative with the text part and the HTML part, each UTF-8
 * in quoted-printable or base64 (encodeBody), with CRLF line ends. Built in one pass of string joins, so a bulk
 * send spends its time sending, not encoding.
 */
/** Boundaries need to be unique, not secret: a random prefix per process and a counter. */
const boundaryPrefix = crypto.randomBytes(8).toString('hex');
let boundaryCount = 0;

export function toMime(message: MimeMessage): string {
  return mimeOf(message, encodeBody(message.text), encodeBody(message.html));
}

/** The message with its two parts already encoded (toMime). */
export function mimeOf(
  message: Omit<MimeMessage, 'text' | 'html'>,
  text: EncodedBody,
  html: EncodedBody,
): string {
  return joinPieces(
    mimePieces(
      message,
      { encoding: text.encoding, pieces: [text.body] },
      { encoding: html.encoding, pieces: [html.body] },
    ),
  );
}

/** The same message in pieces, from parts in pieces (the planned writing of planned-message.ts): no body is copied. */
export function mimePieces(
  message: Omit<MimeMessage, 'text' | 'html'>,
  text: EncodedPieces,
  html: EncodedPieces,
): MimePieces {
  const boundary = `=_herald_${boundaryPrefix}_${(boundaryCount++).toString(36)}`;
  const head = [
    `From: ${encodeAddress(message.from)}`,
    `To: ${encodeAddress(message.to)}`,
    ...(message.replyTo ? [`Reply-To: ${encodeAddress(message.replyTo)}`] : []),
    `Subject: ${encodeWords(message.subject)}`,
    `Date: ${(message.date ?? new Date()).toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: ${message.messageId.replace(/[\r\n\s]+/g, '')}`,
    ...Object.entries(message.headers ?? {})
      .filter(([name]) => !reserved.has(name.toLowerCase()) && /^[\x21-\x39\x3b-\x7e]+$/.test(name))
      .map(([name, value]) => `${name}: ${fold(value)}`),
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    '',
  ].join('\r\n');
  return {
    head,
    body: [
      `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: ${text.encoding}\r\n\r\n`,
      ...text.pieces,
      `\r\n--${boundary}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: ${html.encoding}\r\n\r\n`,
      ...html.pieces,
      `\r\n--${boundary}--\r\n`,
    ],
  };
}
