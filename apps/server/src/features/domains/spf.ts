import net from 'node:net';
import type { DnsLookup } from './dns-lookup.ts';

/** SPF records (RFC 7208): parsing, and counting the DNS lookups a receiver makes to evaluate one. */

export const spfQualifiers = ['+', '-', '~', '?'] as const;
export type SpfQualifier = (typeof spfQualifiers)[number];
export const spfMechanismNames = ['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists'] as const;
export type SpfMechanismName = (typeof spfMechanismNames)[number];
/** Mechanisms that cost a DNS lookup (RFC 7208 §4.6.4); the redirect= modifier costs one too. */
export const spfLookupMechanisms: readonly SpfMechanismName[] = ['include', 'a', 'mx', 'ptr', 'exists'];
/** The most DNS lookups a receiver makes before it gives up on a record (RFC 7208 §4.6.4). */
export const spfLookupLimit = 10;

export interface SpfMechanism {
  /** '+' when the record wrote none. */
  qualifier: SpfQualifier;
  name: SpfMechanismName;
  /** The domain-spec of include, exists, a, mx and ptr, as written. */
  domain?: string;
  /** The address of ip4 and ip6. */
  network?: string;
  /** The IPv4 prefix length of a, mx and ip4; the IPv6 one of ip6. */
  prefix?: number;
  /** The IPv6 prefix length of a and mx (`a//64`). */
  prefix6?: number;
}

export interface SpfModifier {
  /** Lower-case: redirect, exp, or any other name (kept, ignored by receivers). */
  name: string;
  value: string;
}

export interface SpfRecord {
  mechanisms: SpfMechanism[];
  modifiers: SpfModifier[];
}

export type SpfParseResult = { ok: true; record: SpfRecord } | { ok: false; error: string };

/** A TXT value that declares itself an SPF record: `v=spf1` followed by a space or nothing (RFC 7208 §4.5). */
export function isSpfRecord(text: string): boolean {
  return /^v=spf1( |$)/i.test(text);
}

const macroExpand = /%\{[slodiphcrtv]\d*r?[.\-+,/_=]*\}|%%|%_|%-/iy;
const topLabel = /^(?:[a-z0-9]*[a-z][a-z0-9]*|[a-z0-9]+-[a-z0-9-]*[a-z0-9])$/i;

/** RFC 7208 domain-spec: visible characters and valid macros, ending in `.toplabel` (optionally `.`) or a macro. */
export function isDomainSpec(spec: string): boolean {
  if (spec.length === 0 || spec.length > 253) return false;
  let endsInMacro = false;
  for (let at = 0; at < spec.length;) {
    if (spec[at] === '%') {
      macroExpand.lastIndex = at;
      const macro = macroExpand.exec(spec);
      if (!macro) return false;
      at += macro[0].length;
      endsInMacro = macro[0].startsWith('%{');
    } else {
      const code = spec.charCodeAt(at);
      if (code < 0x21 || code > 0x7e) return false;
      at += 1;
      endsInMacro = false;
    }
  }
  if (endsInMacro) return true;
  const end = /\.([^.%{}]+)\.?$/.exec(spec);
  return Boolean(end && topLabel.test(end[1] ?? ''));
}

function readPrefix(text: string | undefined, max: number): number | undefined | null {
  if (text === undefined) return undefined;
  if (!/^(0|[1-9]\d?\d?)$/.test(text)) return null;
  const value = Number(text);
  return value <= max ? value : null;
}

function parseMechanism(term: string): SpfMechanism | string {
  const match = /^([+\-~?]?)([a-z][a-z0-9]*)(.*)$/i.exec(term);
  if (!match) return `"${term}" is not a valid SPF term.`;
  const qualifier = (match[1] || '+') as SpfQualifier;
  const name = (match[2] ?? '').toLowerCase();
  const rest = match[3] ?? '';
  if (!(spfMechanismNames as readonly string[]).includes(name))
    return `"${match[2]}" is not an SPF mechanism.`;
  const mechanism = name as SpfMechanismName;
  const wrong = `"${term}" is not written correctly.`;
  switch (mechanism) {
    case 'all':
      return rest === '' ? { qualifier, name: mechanism } : wrong;
    case 'include':
    case 'exists': {
      if (!rest.startsWith(':') || rest.length === 1)
        return `"${mechanism}" needs a domain, as in ${mechanism}:_spf.example.com.`;
      const domain = rest.slice(1);
      return isDomainSpec(domain)
        ? { qualifier, name: mechanism, domain }
        : `"${domain}" in "${term}" is not a valid domain.`;
    }
    case 'ptr': {
      if (rest === '') return { qualifier, name: mechanism };
      const domain = rest.slice(1);
      return rest.startsWith(':') && isDomainSpec(domain) ? { qualifier, name: mechanism, domain } : wrong;
    }
    case 'a':
    case 'mx': {
      const parts = /^(?::(.+?))?(?:\/([^/]*))?(?:\/\/([^/]*))?$/.exec(rest);
      if (!parts) return wrong;
      const [, domain, cidr4, cidr6] = parts;
      const prefix = readPrefix(cidr4, 32);
      const prefix6 = readPrefix(cidr6, 128);
      if (prefix === null || prefix6 === null) return `The prefix length in "${term}" is not valid.`;
      if (domain !== undefined && !isDomainSpec(domain))
        return `"${domain}" in "${term}" is not a valid domain.`;
      return {
        qualifier,
        name: mechanism,
        ...(domain !== undefined && { domain }),
        ...(prefix !== undefined && { prefix }),
        ...(prefix6 !== undefined && { prefix6 }),
      };
    }
    case 'ip4':
    case 'ip6': {
      if (!rest.startsWith(':'))
        return `"${mechanism}" needs an address, as in ${mechanism === 'ip4' ? 'ip4:192.0.2.0/24' : 'ip6:2001:db8::/32'}.`;
      const slash = rest.lastIndexOf('/');
      const network = slash === -1 ? rest.slice(1) : rest.slice(1, slash);
      const isAddress = mechanism === 'ip4' ? net.isIPv4(network) : net.isIPv6(network);
      if (!isAddress)
        return `"${network}" in "${term}" is not an IP${mechanism === 'ip4' ? 'v4' : 'v6'} address.`;
      const prefix = readPrefix(
        slash === -1 ? undefined : rest.slice(slash + 1),
        mechanism === 'ip4' ? 32 : 128,
      );
      if (prefix === null) return `The prefix length in "${term}" is not valid.`;
      return { qualifier, name: mechanism, network, ...(prefix !== undefined && { prefix }) };
    }
  }
}

/** Parse an SPF record into its mechanisms and modifiers, or say in words what is wrong. Never throws. */
export function parseSpf(text: string): SpfParseResult {
  if (!isSpfRecord(text)) return { ok: false, error: 'The record does not start with v=spf1.' };
  const terms = text
    .slice('v=spf1'.length)
    .split(' ')
    .filter((term) => term !== '');
  const record: SpfRecord = { mechanisms: [], modifiers: [] };
  for (const term of terms) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(term);
    if (modifier) {
      const name = (modifier[1] ?? '').toLowerCase();
      const value = modifier[2] ?? '';
      if ((name === 'redirect' || name === 'exp') && record.modifiers.some((m) => m.name === name)) {
        return { ok: false, error: `${name}= appears more than once.` };
      }
      if ((name === 'redirect' || name === 'exp') && !isDomainSpec(value)) {
        return { ok: false, error: `"${value}" in "${term}" is not a valid domain.` };
      }
      if (!/^[\x21-\x7e]*$/.test(value))
        return { ok: false, error: `"${term}" contains characters SPF does not allow.` };
      record.modifiers.push({ name, value });
      continue;
    }
    const mechanism = parseMechanism(term);
    if (typeof mechanism === 'string') return { ok: false, error: mechanism };
    record.mechanisms.push(mechanism);
  }
  return { ok: true, record };
}

/** The terms of a record that cost a lookup, in order; redirect= only counts when there is no `all` (RFC 7208 §6.1). */
function lookupTerms(
  record: SpfRecord,
): { kind: SpfMechanismName | 'redirect'; domain: string | undefined }[] {
  const terms: { kind: SpfMechanismName | 'redirect'; domain: string | undefined }[] = record.mechanisms
    .filter((m) => spfLookupMechanisms.includes(m.name))
    .map((m) => ({ kind: m.name, domain: m.domain }));
  const redirect = record.modifiers.find((m) => m.name === 'redirect');
  if (redirect && !record.mechanisms.some((m) => m.name === 'all'))
    terms.push({ kind: 'redirect', domain: redirect.value });
  return terms;
}

export interface SpfLookupCount {
  /** DNS lookups a receiver makes, across every included record. */
  lookups: number;
  /** What stops receivers from evaluating the record, in words; empty when nothing does. */
  problems: string[];
  /** Every domain whose SPF record was read through include: or redirect=, lower-case. */
  domains: string[];
}

export interface CountLookupsOptions {
  /** The domain the record is published at: names it in messages and catches a record that includes itself. */
  domain?: string;
  /** How deep includes are followed (default 10). */
  maxDepth?: number;
  /** How many included records are read in all (default 40), so a huge tree costs a bounded number of questions. */
  maxRecords?: number;
}

/**
 * Count the DNS lookups of an SPF record, following include: and redirect= into the records they name.
 * Loops, missing or doubled nested records and syntax errors become problems; a DnsUnavailable from
 * `lookup` is thrown on, since the count is then unknown. Includes written with macros are counted
 * but not followed: they depend on the sender.
 */
export async function countLookups(
  record: string,
  lookup: DnsLookup,
  options: CountLookupsOptions = {},
): Promise<SpfLookupCount> {
  const maxDepth = options.maxDepth ?? 10;
  const maxRecords = options.maxRecords ?? 40;
  const root = options.domain?.toLowerCase().replace(/\.$/, '');
  const problems: string[] = [];
  const domains = new Set<string>();
  let lookups = 0;
  let recordsRead = 0;
  let isCut = false;

  async function visit(text: string, path: string[], nestedAt?: string): Promise<void> {
    const parsed = parseSpf(text);
    if (!parsed.ok) {
      problems.push(
        `${nestedAt ? `The SPF record at ${nestedAt}` : 'The SPF record'} has a mistake: ${parsed.error}`,
      );
      return;
    }
    for (const term of lookupTerms(parsed.record)) {
      lookups += 1;
      if (
        (term.kind === 'include' || term.kind === 'redirect') &&
        term.domain &&
        !term.domain.includes('%')
      ) {
        await follow(term.domain.toLowerCase().replace(/\.$/, ''), term.kind, path);
      }
    }
  }

  async function follow(target: string, kind: 'include' | 'redirect', path: string[]): Promise<void> {
    const from = path.at(-1);
    const via = kind === 'include' ? `include:${target}` : `redirect=${target}`;
    if (path.includes(target)) {
      problems.push(`The SPF record includes itself in a loop: ${[...path, target].join(' → ')}.`);
      return;
    }
    if (path.length - (root ? 1 : 0) >= maxDepth) {
      problems.push(`SPF includes are nested more than ${maxDepth} levels deep (at ${target}).`);
      return;
    }
    if (recordsRead >= maxRecords) {
      if (!isCut)
        problems.push(`The SPF record reads more than ${maxRecords} other records; only those were counted.`);
      isCut = true;
      return;
    }
    recordsRead += 1;
    domains.add(target);
    const found = (await lookup.txt(target)).filter(isSpfRecord);
    const owner = from ? `The SPF record at ${from}` : 'The SPF record';
    if (found.length === 0) {
      problems.push(`${owner} has ${via}, but ${target} has no SPF record.`);
    } else if (found.length > 1) {
      problems.push(`${owner} has ${via}, but ${target} has ${found.length} SPF records instead of one.`);
    } else {
      await visit(found[0] ?? '', [...path, target], target);
    }
  }

  await visit(record, root ? [root] : []);
  return { lookups, problems, domains: [...domains] };
}
