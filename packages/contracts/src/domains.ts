// The punycode package ships no types; its declaration travels with this file to every package that compiles it.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./punycode.d.ts" />
import punycode from 'punycode/punycode.js';

/**
 * Sender domains (docs/senders-and-consent.md): what a user types is reduced to a domain — scheme, credentials,
 * `www.`, port, path, query and fragment go — and international names are kept in their ASCII
 * (punycode) form. A name that cannot be a public mail domain is refused with 'Invalid domain name'.
 */
export const invalidDomainName = 'Invalid domain name';

/** Top-level names that never reach the public internet (RFC 2606, 6761, 6762, 8375 and common private ones). */
const privateTlds = new Set([
  'localhost',
  'local',
  'test',
  'invalid',
  'example',
  'internal',
  'lan',
  'home',
  'corp',
  'localdomain',
  'intranet',
  'private',
  'arpa',
  'onion',
]);

/** Cyrillic letters that look like Latin ones; a label made only of them impersonates a Latin name. */
const latinLookalikes = new Set([...'асеорхуіјѕһԁԛԝӏ']);

const scripts = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
] as const;

/** The letter scripts a label uses, of those that are confused with one another. */
function scriptsOf(label: string): Set<string> {
  const found = new Set<string>();
  for (const ch of label) for (const [name, re] of scripts) if (re.test(ch)) found.add(name);
  return found;
}

/** A Unicode label that could pass for another name: mixed confusable scripts, or Cyrillic letters that all look Latin. */
function isHomograph(label: string, tld: string): boolean {
  const used = scriptsOf(label);
  if (used.size > 1) return true;
  if (
    used.has('Cyrillic') &&
    ![...label].some((ch) => /\p{Script=Cyrillic}/u.test(ch) && !latinLookalikes.has(ch))
  ) {
    return !/[^\u0000-\u007f]/.test(tld);
  }
  return false;
}

/**
 * The domain in `input`, lower-case ASCII (punycode), or null when it is not a public domain:
 * IP addresses, single labels, private top-level names, labels over 63 or names over 253
 * characters, labels that start or end with a hyphen, and look-alike (homograph) international names.
 */
export function reduceDomain(input: string): string | null {
  let text = input.trim().normalize('NFC').toLowerCase();
  if (!text || text.length > 1000) return null;
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  text = text.replace(/^[^/?#@]*@/, '');
  text = text.split(/[/?#\\]/, 1)[0] ?? '';
  text = text.replace(/:\d*$/, '');
  text = text.replace(/\.$/, '');
  if (text.startsWith('www.')) text = text.slice(4);
  // Full stops of other scripts separate labels too (IDNA).
  text = text.replace(/[\u3002\uff0e\uff61]/g, '.');
  if (!text || text.startsWith('[') || /[\s_%*!'"()<>,;=&$^`{}|~+]/.test(text)) return null;
  const unicodeLabels = text.split('.');
  if (unicodeLabels.length < 2 || unicodeLabels.some((l) => l.length === 0)) return null;
  let labels: string[];
  try {
    labels = unicodeLabels.map((l) => (/[^\u0000-\u007f]/.test(l) ? `xn--${punycode.encode(l)}` : l));
  } catch {
    return null;
  }
  const tld = labels[labels.length - 1]!;
  const unicodeTld = unicodeLabels[unicodeLabels.length - 1]!;
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i]!;
    if (label.length > 63 || !/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(label)) return null;
    if (label.startsWith('xn--')) {
      let decoded: string;
      try {
        decoded = punycode.decode(label.slice(4));
      } catch {
        return null;
      }
      if (!decoded || /[^\p{L}\p{M}\p{N}-]/u.test(decoded)) return null;
      if (isHomograph(decoded, unicodeTld)) return null;
    } else if (/^..--/.test(label)) {
      return null;
    }
  }
  const domain = labels.join('.');
  if (domain.length > 253) return null;
  if (/^\d+$/.test(tld) || privateTlds.has(tld)) return null;
  if (!tld.startsWith('xn--') && !/^[a-z]{2,63}$/.test(tld)) return null;
  return domain;
}

/** The Unicode form of a reduced domain, for showing it (`xn--bcher-kva.example` → `bücher.example`). */
export function displayDomain(domain: string): string {
  try {
    return punycode.toUnicode(domain);
  } catch {
    return domain;
  }
}

/** The domain part of an address, lower-case (`Ann@Example.com` → `example.com`). */
export function domainOfAddress(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0
    ? ''
    : address
        .slice(at + 1)
        .trim()
        .toLowerCase();
}
