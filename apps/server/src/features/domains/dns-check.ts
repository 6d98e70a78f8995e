import type { DnsRecordCheck, DnsRecordStatus } from '@herald/contracts';
import { DnsUnavailable, type DnsLookup } from './dns-lookup.ts';
import { countLookups, isSpfRecord, parseSpf, spfLookupLimit } from './spf.ts';

/** What a sender domain must publish, and how to check it: DKIM, SPF, DMARC and an optional return-path CNAME. */

export interface DomainExpectation {
  /** Lower-case punycode. */
  domain: string;
  dkimSelector: string;
  /** Base64 SubjectPublicKeyInfo DER, without PEM armour. */
  dkimPublicKey: string;
  /** What the SPF record must include (config SPF_INCLUDE); any valid record passes when unset. */
  spfInclude?: string;
  /** Where bounces.{domain} must point (config RETURN_PATH_DOMAIN); no CNAME is asked for when unset. */
  returnPathDomain?: string;
}

type RecordCheck = Pick<DnsRecordCheck, 'status' | 'problems' | 'found'> & { value?: string };

const dmarcPolicies = ['none', 'quarantine', 'reject'];

function withoutSpaces(text: string): string {
  return text.replace(/[\s"]/g, '');
}

function lowerName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** Tags of a DKIM or DMARC record (`k=v; k=v`): names lower-case, values trimmed; the first of a repeated tag wins. */
function readTags(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const equals = part.indexOf('=');
    if (equals === -1) continue;
    const name = part.slice(0, equals).trim().toLowerCase();
    if (name && !tags.has(name)) tags.set(name, part.slice(equals + 1).trim());
  }
  return tags;
}

/** The records to publish for a domain, not yet checked. */
export function expectedRecords(e: DomainExpectation): DnsRecordCheck[] {
  const unchecked = { status: 'unchecked' as const, problems: [], found: [] };
  const records: DnsRecordCheck[] = [
    {
      kind: 'dkim',
      type: 'TXT',
      host: `${e.dkimSelector}._domainkey.${e.domain}`,
      value: `v=DKIM1; k=rsa; p=${withoutSpaces(e.dkimPublicKey)}`,
      required: true,
      ...unchecked,
    },
    {
      kind: 'spf',
      type: 'TXT',
      host: e.domain,
      value: e.spfInclude ? `v=spf1 include:${e.spfInclude} ~all` : 'v=spf1 mx ~all',
      required: true,
      ...unchecked,
    },
    {
      kind: 'dmarc',
      type: 'TXT',
      host: `_dmarc.${e.domain}`,
      value: `v=DMARC1; p=none; rua=mailto:dmarc@${e.domain}`,
      required: true,
      ...unchecked,
    },
  ];
  if (e.returnPathDomain) {
    records.push({
      kind: 'returnPath',
      type: 'CNAME',
      host: `bounces.${e.domain}`,
      value: e.returnPathDomain,
      required: false,
      ...unchecked,
    });
  }
  return records;
}

/** Pass when nothing is wrong, else the worst status among the problems found. */
function verdict(found: string[], problems: { status: DnsRecordStatus; text: string }[]): RecordCheck {
  const order: DnsRecordStatus[] = ['missing', 'invalid', 'mismatch'];
  const status = order.find((s) => problems.some((p) => p.status === s)) ?? 'pass';
  return { status, problems: problems.map((p) => p.text), found };
}

async function checkDkim(lookup: DnsLookup, host: string, publicKey: string): Promise<RecordCheck> {
  let found = await lookup.txt(host);
  if (found.length === 0) {
    // A recursive resolver follows a CNAME by itself; this covers servers that answer only the CNAME.
    const [target] = await lookup.cname(host);
    if (target) found = await lookup.txt(target);
    if (found.length === 0) {
      const text = target
        ? `${host} points to ${target}, which has no TXT record.`
        : `No TXT record found at ${host}.`;
      return verdict([], [{ status: 'missing', text }]);
    }
  }
  const keys = found
    .map((value) => readTags(withoutSpaces(value)))
    .filter((tags) => tags.has('p') || tags.get('v')?.startsWith('DKIM'));
  if (keys.length === 0)
    return verdict(found, [
      { status: 'missing', text: `The TXT record at ${host} is not a DKIM key (it has no p=).` },
    ]);
  if (keys.length > 1) {
    return verdict(found, [
      {
        status: 'invalid',
        text: `There are ${keys.length} DKIM records at ${host}; keep only the one with our key.`,
      },
    ]);
  }
  const tags = keys[0] ?? new Map<string, string>();
  const problems: { status: DnsRecordStatus; text: string }[] = [];
  const version = tags.get('v');
  if (version !== undefined && version !== 'DKIM1')
    problems.push({ status: 'invalid', text: `The record says v=${version}; it must be v=DKIM1.` });
  const keyType = tags.get('k');
  if (keyType !== undefined && keyType.toLowerCase() !== 'rsa')
    problems.push({ status: 'mismatch', text: `The record says k=${keyType}; our key is k=rsa.` });
  const published = tags.get('p');
  if (published === undefined)
    problems.push({ status: 'invalid', text: 'The record has no p= with the key.' });
  else if (published === '')
    problems.push({
      status: 'mismatch',
      text: 'The published key is empty (p=), which means revoked: copy our value again, whole.',
    });
  else if (published !== withoutSpaces(publicKey))
    problems.push({
      status: 'mismatch',
      text: 'The published key differs from ours: copy the value again, whole.',
    });
  return verdict(found, problems);
}

async function checkSpf(
  lookup: DnsLookup,
  domain: string,
  expected: string,
  spfInclude: string | undefined,
): Promise<RecordCheck> {
  const found = (await lookup.txt(domain)).filter(isSpfRecord);
  const [record] = found;
  if (record === undefined)
    return verdict([], [{ status: 'missing', text: `No SPF record found at ${domain}.` }]);
  // With a record in place the value to publish is the mechanism to add to it, not a second record.
  const value = spfInclude ? `include:${spfInclude}` : found.length === 1 ? record : expected;
  if (found.length > 1) {
    return {
      ...verdict(found, [
        {
          status: 'invalid',
          text: `There are ${found.length} SPF records; a domain must have exactly one (merge them).`,
        },
      ]),
      value,
    };
  }
  const parsed = parseSpf(record);
  if (!parsed.ok)
    return {
      ...verdict(found, [{ status: 'invalid', text: `The SPF record has a mistake: ${parsed.error}` }]),
      value,
    };
  const problems: { status: DnsRecordStatus; text: string }[] = [];
  const count = await countLookups(record, lookup, { domain });
  for (const text of count.problems) problems.push({ status: 'invalid', text });
  if (count.lookups > spfLookupLimit) {
    problems.push({
      status: 'invalid',
      text: `SPF needs ${count.lookups} DNS lookups; the limit is ${spfLookupLimit}.`,
    });
  }
  if (parsed.record.mechanisms.some((m) => m.name === 'all' && m.qualifier === '+')) {
    problems.push({ status: 'invalid', text: 'SPF ends in +all, which lets anyone send as you.' });
  }
  if (spfInclude && !count.domains.includes(spfInclude.toLowerCase())) {
    problems.push({ status: 'mismatch', text: `The SPF record does not include ${spfInclude}.` });
  }
  return { ...verdict(found, problems), value };
}

async function checkDmarc(lookup: DnsLookup, host: string): Promise<RecordCheck> {
  const found = (await lookup.txt(host)).filter((value) => /^v\s*=\s*dmarc1\s*(;|$)/i.test(value.trim()));
  if (found.length === 0)
    return verdict([], [{ status: 'missing', text: `No DMARC record found at ${host}.` }]);
  if (found.length > 1) {
    return verdict(found, [
      {
        status: 'invalid',
        text: `There are ${found.length} DMARC records at ${host}; a domain must have exactly one (delete the others).`,
      },
    ]);
  }
  const tags = readTags(found[0] ?? '');
  const problems: { status: DnsRecordStatus; text: string }[] = [];
  if (tags.get('v') !== 'DMARC1')
    problems.push({ status: 'invalid', text: 'The DMARC record must start with v=DMARC1, in capitals.' });
  const policy = tags.get('p');
  if (policy === undefined || policy === '')
    problems.push({ status: 'invalid', text: 'The DMARC record has no p= policy.' });
  else if (!dmarcPolicies.includes(policy.toLowerCase())) {
    problems.push({
      status: 'invalid',
      text: `The DMARC policy p=${policy} is not one of none, quarantine or reject.`,
    });
  }
  return verdict(found, problems);
}

async function checkReturnPath(lookup: DnsLookup, host: string, target: string): Promise<RecordCheck> {
  const found = await lookup.cname(host);
  const [current] = found;
  if (current === undefined)
    return verdict([], [{ status: 'missing', text: `No CNAME record found at ${host}.` }]);
  if (lowerName(current) !== lowerName(target))
    return verdict(found, [{ status: 'mismatch', text: `CNAME points to ${current} instead of ${target}.` }]);
  return verdict(found, []);
}

async function settle(record: DnsRecordCheck, check: () => Promise<RecordCheck>): Promise<DnsRecordCheck> {
  try {
    return { ...record, ...(await check()) };
  } catch (error) {
    if (!(error instanceof DnsUnavailable)) throw error;
    return { ...record, status: 'unknown', problems: [`Could not check: ${error.explanation}.`], found: [] };
  }
}

/**
 * Check every expected record live. A record the DNS server did not answer for is 'unknown', never pass;
 * errors other than DnsUnavailable are thrown on.
 */
export async function checkDomain(lookup: DnsLookup, e: DomainExpectation): Promise<DnsRecordCheck[]> {
  return Promise.all(
    expectedRecords(e).map((record) => {
      switch (record.kind) {
        case 'dkim':
          return settle(record, () => checkDkim(lookup, record.host, e.dkimPublicKey));
        case 'spf':
          return settle(record, () => checkSpf(lookup, record.host, record.value, e.spfInclude));
        case 'dmarc':
          return settle(record, () => checkDmarc(lookup, record.host));
        case 'returnPath':
          return settle(record, () => checkReturnPath(lookup, record.host, record.value));
      }
    }),
  );
}

/** Every required record passed: addresses on the domain may send. */
export function domainVerified(records: readonly DnsRecordCheck[]): boolean {
  return records.every((record) => !record.required || record.status === 'pass');
}

/** The DNS server answered for every record. */
export function checkComplete(records: readonly DnsRecordCheck[]): boolean {
  return records.every((record) => record.status !== 'unknown');
}
