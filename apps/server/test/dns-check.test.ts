import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkComplete, checkDomain, domainVerified, expectedRecords, type DomainExpectation } from '../src/features/domains/dns-check.ts';
import { createDnsLookup, DnsUnavailable, type DnsLookup } from '../src/features/domains/dns-lookup.ts';
import { countLookups, parseSpf, spfLookupMechanisms, type SpfMechanism } from '../src/features/domains/spf.ts';
import { startDnsServer, type DnsZoneEntry } from './dns-server.ts';

const publicKey = (): string =>
  generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
const key = publicKey();
const expectation: DomainExpectation = {
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

let dns: Awaited<ReturnType<typeof startDnsServer>>;
let lookup: DnsLookup;
beforeAll(async () => {
  dns = await startDnsServer();
  lookup = createDnsLookup({ servers: [dns.server], timeoutMs: 300 });
});
afterAll(() => dns.close());
beforeEach(() => {
  for (const name of Object.keys(dns.zone)) delete dns.zone[name];
  Object.assign(dns.zone, goodZone());
});

async function check(e: DomainExpectation = expectation) {
  const records = await checkDomain(lookup, e);
  const byKind = Object.fromEntries(records.map((r) => [r.kind, r]));
  return { records, dkim: byKind.dkim!, spf: byKind.spf!, dmarc: byKind.dmarc!, returnPath: byKind.returnPath };
}

describe('DNS lookup', () => {
  it('answers [] for a name or record that does not exist, and joins TXT strings', async () => {
    dns.zone['long.test'] = { TXT: ['x'.repeat(600)] };
    expect(await lookup.txt('nothing-here.test')).toEqual([]);
    expect(await lookup.txt('bounces.example.com')).toEqual([]);
    expect(await lookup.cname('example.com')).toEqual([]);
    expect(await lookup.cname('bounces.example.com')).toEqual(['bounces.herald.test']);
    expect(await lookup.txt('long.test')).toEqual(['x'.repeat(600)]);
  });

  it('throws DnsUnavailable for SERVFAIL, a timeout and an unreachable server', async () => {
    dns.zone['broken.test'] = { fail: 'servfail' };
    dns.zone['silent.test'] = { fail: 'timeout' };
    await expect(lookup.txt('broken.test')).rejects.toMatchObject({ name: 'DnsUnavailable', reason: 'SERVFAIL' });
    await expect(lookup.cname('silent.test')).rejects.toMatchObject({ name: 'DnsUnavailable', reason: 'timed out' });
    const other = await startDnsServer();
    await other.close();
    const unreachable = createDnsLookup({ servers: [other.server], timeoutMs: 300 });
    await expect(unreachable.txt('example.com')).rejects.toBeInstanceOf(DnsUnavailable);
  });

  it('refuses DNS servers that are not IP addresses with an optional port', () => {
    expect(() => createDnsLookup({ servers: ['dns.example.com'], timeoutMs: 300 })).toThrow(/DNS_SERVERS/);
    expect(() => createDnsLookup({ servers: ['127.0.0.1:5353', '[::1]:53', '::1', '9.9.9.9'], timeoutMs: 300 })).not.toThrow();
  });
});

describe('expected records', () => {
  it('lists DKIM, SPF, DMARC and the return path, unchecked', () => {
    const records = expectedRecords(expectation);
    expect(records.map((r) => [r.kind, r.type, r.host, r.value, r.required, r.status])).toEqual([
      ['dkim', 'TXT', 's1._domainkey.example.com', `v=DKIM1; k=rsa; p=${key}`, true, 'unchecked'],
      ['spf', 'TXT', 'example.com', 'v=spf1 include:_spf.herald.test ~all', true, 'unchecked'],
      ['dmarc', 'TXT', '_dmarc.example.com', 'v=DMARC1; p=none; rua=mailto:dmarc@example.com', true, 'unchecked'],
      ['returnPath', 'CNAME', 'bounces.example.com', 'bounces.herald.test', false, 'unchecked'],
    ]);
  });

  it('suggests an mx record and asks no CNAME without the settings', () => {
    const records = expectedRecords({ domain: 'example.com', dkimSelector: 's1', dkimPublicKey: key });
    expect(records.map((r) => r.kind)).toEqual(['dkim', 'spf', 'dmarc']);
    expect(records[1]?.value).toBe('v=spf1 mx ~all');
  });
});

describe('checking a domain', () => {
  it('passes when everything is published', async () => {
    const { records, dkim, spf, dmarc, returnPath } = await check();
    expect(records.map((r) => [r.kind, r.status, r.problems])).toEqual([
      ['dkim', 'pass', []],
      ['spf', 'pass', []],
      ['dmarc', 'pass', []],
      ['returnPath', 'pass', []],
    ]);
    expect(dkim.found).toEqual([`v=DKIM1; k=rsa; p=${key}`]);
    expect(spf.found).toEqual(['v=spf1 include:_spf.herald.test ~all']);
    expect(spf.value).toBe('include:_spf.herald.test');
    expect(dmarc.found).toEqual(['v=DMARC1; p=none; rua=mailto:dmarc@example.com']);
    expect(returnPath?.found).toEqual(['bounces.herald.test']);
    expect(domainVerified(records)).toBe(true);
    expect(checkComplete(records)).toBe(true);
  });

  describe('DKIM', () => {
    it('is missing without a TXT record', async () => {
      delete dns.zone['s1._domainkey.example.com'];
      const { records, dkim } = await check();
      expect(dkim).toMatchObject({ status: 'missing', problems: ['No TXT record found at s1._domainkey.example.com.'], found: [] });
      expect(domainVerified(records)).toBe(false);
      expect(checkComplete(records)).toBe(true);
    });

    it('is a mismatch when the published key is another one or cut short', async () => {
      dns.zone['s1._domainkey.example.com'] = { TXT: [`v=DKIM1; k=rsa; p=${publicKey()}`] };
      expect((await check()).dkim).toMatchObject({ status: 'mismatch', problems: ['The published key differs from ours: copy the value again, whole.'] });
      dns.zone['s1._domainkey.example.com'] = { TXT: [`v=DKIM1; k=rsa; p=${key.slice(0, 200)}`] };
      expect((await check()).dkim.status).toBe('mismatch');
    });

    it('passes a key split into 255-character strings, with spaces and quotes, without v=DKIM1', async () => {
      const record = `k=rsa; p=${key.slice(0, 150)} "${key.slice(150, 300)}"\t${key.slice(300)}`;
      expect(record.length).toBeGreaterThan(255);
      dns.zone['s1._domainkey.example.com'] = { TXT: [record] };
      expect((await check()).dkim).toMatchObject({ status: 'pass', found: [record] });
    });

    it('follows a CNAME to the record holding the key', async () => {
      dns.zone['s1._domainkey.example.com'] = { CNAME: 's1.dkim.provider.test' };
      dns.zone['s1.dkim.provider.test'] = { TXT: [`v=DKIM1; p=${key}`] };
      expect((await check()).dkim.status).toBe('pass');
    });

    it('is invalid with two keys at the selector', async () => {
      dns.zone['s1._domainkey.example.com'] = { TXT: [`v=DKIM1; p=${key}`, `v=DKIM1; p=${publicKey()}`] };
      expect((await check()).dkim).toMatchObject({ status: 'invalid', problems: ['There are 2 DKIM records at s1._domainkey.example.com; keep only the one with our key.'] });
    });
  });

  describe('SPF', () => {
    it('is missing without a v=spf1 record', async () => {
      dns.zone['example.com'] = { TXT: ['google-site-verification=abc123'] };
      const { spf } = await check();
      expect(spf).toMatchObject({ status: 'missing', problems: ['No SPF record found at example.com.'], value: 'v=spf1 include:_spf.herald.test ~all' });
    });

    it('is invalid with two records', async () => {
      dns.zone['example.com'] = { TXT: ['v=spf1 include:_spf.herald.test ~all', 'v=spf1 mx -all'] };
      const { spf } = await check();
      expect(spf.status).toBe('invalid');
      expect(spf.problems).toEqual(['There are 2 SPF records; a domain must have exactly one (merge them).']);
      expect(spf.found).toHaveLength(2);
    });

    it('counts lookups across nested includes and refuses more than 10', async () => {
      // 3 here + 4 in the first level + 5 in the second = 12.
      dns.zone['example.com'] = { TXT: ['v=spf1 include:_spf.herald.test mx include:_spf.example.com ~all'] };
      dns.zone['_spf.example.com'] = { TXT: ['v=spf1 a mx ptr include:_spf2.example.com -all'] };
      dns.zone['_spf2.example.com'] = { TXT: ['v=spf1 a a:x.example.com mx:y.example.com exists:%{i}.e.example.com ptr:z.example.com ?all'] };
      expect(await countLookups(dns.zone['example.com'].TXT![0]!, lookup, { domain: 'example.com' })).toEqual({
        lookups: 12,
        problems: [],
        domains: ['_spf.herald.test', '_spf.example.com', '_spf2.example.com'],
      });
      expect((await check()).spf).toMatchObject({ status: 'invalid', problems: ['SPF needs 12 DNS lookups; the limit is 10.'] });
      dns.zone['_spf2.example.com'] = { TXT: ['v=spf1 a a:x.example.com mx:y.example.com ?all'] };
      expect((await check()).spf.status).toBe('pass');
    });

    it('catches an include loop and a redirect loop', async () => {
      dns.zone['example.com'] = { TXT: ['v=spf1 include:_spf.herald.test include:a.example.net ~all'] };
      dns.zone['a.example.net'] = { TXT: ['v=spf1 include:b.example.net'] };
      dns.zone['b.example.net'] = { TXT: ['v=spf1 redirect=example.com'] };
      const { spf } = await check();
      expect(spf.status).toBe('invalid');
      expect(spf.problems).toEqual(['The SPF record includes itself in a loop: example.com → a.example.net → b.example.net → example.com.']);
      const self = await countLookups('v=spf1 redirect=a.example.net', { txt: async (name) => [`v=spf1 redirect=${name === 'a.example.net' ? 'b' : 'a'}.example.net`], cname: async () => [] });
      expect(self.problems).toEqual(['The SPF record includes itself in a loop: a.example.net → b.example.net → a.example.net.']);
    });

    it('reports a nested record that is missing or broken', async () => {
      dns.zone['example.com'] = { TXT: ['v=spf1 include:_spf.herald.test include:gone.example.net include:bad.example.net ~all'] };
      dns.zone['bad.example.net'] = { TXT: ['v=spf1 ip4:999.1.1.1 -all'] };
      const { spf } = await check();
      expect(spf.status).toBe('invalid');
      expect(spf.problems).toEqual([
        'The SPF record at example.com has include:gone.example.net, but gone.example.net has no SPF record.',
        'The SPF record at bad.example.net has a mistake: "999.1.1.1" in "ip4:999.1.1.1" is not an IPv4 address.',
      ]);
    });

    it('is invalid when it does not parse', async () => {
      dns.zone['example.com'] = { TXT: ['v=spf1 include _spf.herald.test ~all'] };
      expect((await check()).spf).toMatchObject({ status: 'invalid', problems: ['The SPF record has a mistake: "include" needs a domain, as in include:_spf.example.com.'] });
    });

    it('refuses +all, written or implied', async () => {
      for (const all of ['+all', 'all']) {
        dns.zone['example.com'] = { TXT: [`v=spf1 include:_spf.herald.test ${all}`] };
        expect((await check()).spf).toMatchObject({ status: 'invalid', problems: ['SPF ends in +all, which lets anyone send as you.'] });
      }
    });

    it('must include the configured domain, directly or through an include; any valid record passes without one', async () => {
      dns.zone['example.com'] = { TXT: ['v=spf1 mx ~all'] };
      expect((await check()).spf).toMatchObject({ status: 'mismatch', problems: ['The SPF record does not include _spf.herald.test.'], value: 'include:_spf.herald.test' });
      const { spf } = await check({ ...expectation, spfInclude: undefined });
      expect(spf).toMatchObject({ status: 'pass', value: 'v=spf1 mx ~all' });
      dns.zone['example.com'] = { TXT: ['v=spf1 include:_spf.example.com -all'] };
      dns.zone['_spf.example.com'] = { TXT: ['v=spf1 ip4:198.51.100.7 include:_spf.herald.test -all'] };
      expect((await check()).spf.status).toBe('pass');
    });
  });

  describe('DMARC', () => {
    it('is missing without a v=DMARC1 record', async () => {
      dns.zone['_dmarc.example.com'] = { TXT: ['something else'] };
      expect((await check()).dmarc).toMatchObject({ status: 'missing', problems: ['No DMARC record found at _dmarc.example.com.'] });
    });

    it('needs a p= policy that is none, quarantine or reject', async () => {
      dns.zone['_dmarc.example.com'] = { TXT: ['v=DMARC1; rua=mailto:dmarc@example.com'] };
      expect((await check()).dmarc).toMatchObject({ status: 'invalid', problems: ['The DMARC record has no p= policy.'] });
      dns.zone['_dmarc.example.com'] = { TXT: ['v=DMARC1; p=block'] };
      expect((await check()).dmarc).toMatchObject({ status: 'invalid', problems: ['The DMARC policy p=block is not one of none, quarantine or reject.'] });
      for (const policy of ['quarantine', 'reject']) {
        dns.zone['_dmarc.example.com'] = { TXT: [`v=DMARC1;p=${policy};pct=100`] };
        expect((await check()).dmarc.status).toBe('pass');
      }
    });

    it('is invalid with two records', async () => {
      dns.zone['_dmarc.example.com'] = { TXT: ['v=DMARC1; p=none', 'v=DMARC1; p=reject'] };
      expect((await check()).dmarc).toMatchObject({
        status: 'invalid',
        problems: ['There are 2 DMARC records at _dmarc.example.com; a domain must have exactly one (delete the others).'],
      });
    });
  });

  describe('return path', () => {
    it('reports a CNAME pointing elsewhere or missing, without blocking verification', async () => {
      dns.zone['bounces.example.com'] = { CNAME: 'bounces.other.test' };
      const pointed = await check();
      expect(pointed.returnPath).toMatchObject({ status: 'mismatch', problems: ['CNAME points to bounces.other.test instead of bounces.herald.test.'] });
      expect(domainVerified(pointed.records)).toBe(true);
      delete dns.zone['bounces.example.com'];
      const missing = await check();
      expect(missing.returnPath).toMatchObject({ status: 'missing', problems: ['No CNAME record found at bounces.example.com.'] });
      expect(domainVerified(missing.records)).toBe(true);
    });
  });

  describe('when the DNS server does not answer', () => {
    it('a SERVFAIL makes the record unknown, never pass', async () => {
      dns.zone['s1._domainkey.example.com'] = { fail: 'servfail' };
      const { records, dkim, spf } = await check();
      expect(dkim).toMatchObject({ status: 'unknown', problems: ['Could not check: the DNS server failed to answer (SERVFAIL).'], found: [] });
      expect(spf.status).toBe('pass');
      expect(checkComplete(records)).toBe(false);
      expect(domainVerified(records)).toBe(false);
    });

    it('a timeout makes the record unknown, also deep in an SPF include', async () => {
      dns.zone['_dmarc.example.com'] = { fail: 'timeout' };
      dns.zone['_spf.herald.test'] = { fail: 'timeout' };
      const { records, dmarc, spf, dkim } = await check();
      expect(dmarc).toMatchObject({ status: 'unknown', problems: ['Could not check: the DNS server timed out.'] });
      expect(spf).toMatchObject({ status: 'unknown', problems: ['Could not check: the DNS server timed out.'] });
      expect(dkim.status).toBe('pass');
      expect(checkComplete(records)).toBe(false);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Properties of the SPF parser

const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}[a-z0-9]$/);
const domainName = fc.tuple(fc.constantFrom('', '_spf.', 'mail.'), fc.array(label, { minLength: 1, maxLength: 3 }), fc.stringMatching(/^[a-z]{2,6}$/))
  .map(([prefix, labels, top]) => `${prefix}${labels.join('.')}.${top}`);
const qualifier = fc.constantFrom('+', '-', '~', '?') as fc.Arbitrary<SpfMechanism['qualifier']>;
const prefixOf = (max: number) => fc.option(fc.integer({ min: 0, max }), { nil: undefined });
const mechanism: fc.Arbitrary<SpfMechanism> = fc.oneof(
  fc.record({ qualifier, name: fc.constant('all' as const) }),
  fc.record({ qualifier, name: fc.constantFrom('include' as const, 'exists' as const), domain: domainName }),
  fc.record({ qualifier, name: fc.constant('ptr' as const), domain: fc.option(domainName, { nil: undefined }) }, { requiredKeys: ['qualifier', 'name'] }),
  fc.record(
    { qualifier, name: fc.constantFrom('a' as const, 'mx' as const), domain: fc.option(domainName, { nil: undefined }), prefix: prefixOf(32), prefix6: prefixOf(128) },
    { requiredKeys: ['qualifier', 'name'] },
  ),
  fc.record({ qualifier, name: fc.constant('ip4' as const), network: fc.ipV4(), prefix: prefixOf(32) }, { requiredKeys: ['qualifier', 'name', 'network'] }),
  fc.record({ qualifier, name: fc.constant('ip6' as const), network: fc.ipV6(), prefix: prefixOf(128) }, { requiredKeys: ['qualifier', 'name', 'network'] }),
);
/** Written as a publisher might: '+' left out or not, the name in any case. */
const written = fc.tuple(mechanism, fc.boolean(), fc.boolean()).map(([m, writesPlus, upper]) => {
  const name = upper ? m.name.toUpperCase() : m.name;
  const text = `${m.qualifier === '+' && !writesPlus ? '' : m.qualifier}${name}${m.domain !== undefined ? `:${m.domain}` : ''}${m.network !== undefined ? `:${m.network}` : ''}${m.prefix !== undefined ? `/${m.prefix}` : ''}${m.prefix6 !== undefined ? `//${m.prefix6}` : ''}`;
  return { mechanism: Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as SpfMechanism, text };
});
const spfPieces = fc.constantFrom('v=spf1', 'include:', 'a', 'mx', '/', '//', ':', '%{d}', '%', '=', 'redirect=', 'ip4:', 'ip6:', '1.2.3.4', '::1', '+', '-', ' ', 'all', '.com', 'x');

describe('SPF parser properties', () => {
  it('never throws on any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.array(spfPieces).map((p) => `v=spf1 ${p.join('')}`)), (text) => {
        const result = parseSpf(text);
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back the mechanisms of a generated valid record', () => {
    fc.assert(
      fc.property(fc.array(written, { maxLength: 12 }), (terms) => {
        const result = parseSpf(['v=spf1', ...terms.map((t) => t.text)].join(' '));
        expect(result).toEqual({ ok: true, record: { mechanisms: terms.map((t) => t.mechanism), modifiers: [] } });
      }),
      { numRuns: 500 },
    );
  });

  it('counts one lookup per lookup mechanism in a flat record', async () => {
    const flat: DnsLookup = { txt: async () => ['v=spf1 -all'], cname: async () => [] };
    await fc.assert(
      fc.asyncProperty(fc.array(written, { maxLength: 15 }), async (terms) => {
        const count = await countLookups(['v=spf1', ...terms.map((t) => t.text)].join(' '), flat);
        expect(count.lookups).toBe(terms.filter((t) => spfLookupMechanisms.includes(t.mechanism.name)).length);
        expect(count.problems).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
