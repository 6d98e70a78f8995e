import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { checkDomain, type DomainExpectation } from '../src/features/domains/dns-check.ts';
import { createDnsLookup, type DnsLookup } from '../src/features/domains/dns-lookup.ts';
import { startDnsServer, type DnsZoneEntry } from './dns-server.ts';

/**
 * What the DNS check tests share: a domain's expected records, a loopback DNS server whose zone is reset to a
 * domain that published them right before each test, a lookup that asks it, and a check of the domain. `dns` and
 * `lookup` are the current file's: each file calls useDnsZone(), whose hooks build them anew (the test worker shares
 * this module between files).
 */
export const publicKey = (): string =>
  generateKeyPairSync('rsa', { modulusLength: 2048 })
    .publicKey.export({ type: 'spki', format: 'der' })
    .toString('base64');
export const key = publicKey();
export const expectation: DomainExpectation = {
  domain: 'example.com',
  dkimSelector: 's1',
  dkimPublicKey: key,
  spfInclude: '_spf.herald.test',
  returnPathDomain: 'bounces.herald.test',
};

/** A domain that has published everything right. */
function goodZone(): Record<string, DnsZoneEntry> {
  return {
    's1._domainkey.example.com': { TXT: [`v=DKIM1; k=rsa; p=${key}`] },
    'example.com': { TXT: ['v=spf1 include:_spf.herald.test ~all', 'google-site-verification=abc123'] },
    '_spf.herald.test': { TXT: ['v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 -all'] },
    '_dmarc.example.com': { TXT: ['v=DMARC1; p=none; rua=mailto:dmarc@example.com'] },
    'bounces.example.com': { CNAME: 'bounces.herald.test' },
  };
}

export let dns: Awaited<ReturnType<typeof startDnsServer>>;
export let lookup: DnsLookup;

export function useDnsZone(): void {
  beforeAll(async () => {
    dns = await startDnsServer();
    lookup = createDnsLookup({ servers: [dns.server], timeoutMs: 300 });
  });
  afterAll(() => dns.close());
  beforeEach(() => {
    for (const name of Object.keys(dns.zone)) delete dns.zone[name];
    Object.assign(dns.zone, goodZone());
  });
}

export async function check(e: DomainExpectation = expectation) {
  const records = await checkDomain(lookup, e);
  const byKind = Object.fromEntries(records.map((r) => [r.kind, r]));
  return {
    records,
    dkim: byKind.dkim!,
    spf: byKind.spf!,
    dmarc: byKind.dmarc!,
    returnPath: byKind.returnPath,
  };
}
