import { describe, expect, it } from 'vitest';
import { checkComplete, domainVerified, expectedRecords } from '../src/features/domains/dns-check.ts';
import { createDnsLookup, DnsUnavailable } from '../src/features/domains/dns-lookup.ts';
import { check, dns, expectation, key, lookup, publicKey, useDnsZone } from './dns-check-fixtures.ts';
import { startDnsServer } from './dns-server.ts';

// The DNS lookup, the records a domain should publish, and the check of its DKIM, DMARC and return path records,
// also when the DNS server does not answer (SPF is dns-check-spf.test.ts).
useDnsZone();

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
    await expect(lookup.txt('broken.test')).rejects.toMatchObject({
      name: 'DnsUnavailable',
      reason: 'SERVFAIL',
    });
    await expect(lookup.cname('silent.test')).rejects.toMatchObject({
      name: 'DnsUnavailable',
      reason: 'timed out',
    });
    const other = await startDnsServer();
    await other.close();
    const unreachable = createDnsLookup({ servers: [other.server], timeoutMs: 300 });
    await expect(unreachable.txt('example.com')).rejects.toBeInstanceOf(DnsUnavailable);
  });

  it('refuses DNS servers that are not IP addresses with an optional port', () => {
    expect(() => createDnsLookup({ servers: ['dns.example.com'], timeoutMs: 300 })).toThrow(/DNS_SERVERS/);
    expect(() =>
      createDnsLookup({ servers: ['127.0.0.1:5353', '[::1]:53', '::1', '9.9.9.9'], timeoutMs: 300 }),
    ).not.toThrow();
  });
});

describe('expected records', () => {
  it('lists DKIM, SPF, DMARC and the return path, unchecked', () => {
    const records = expectedRecords(expectation);
    expect(records.map((r) => [r.kind, r.type, r.host, r.value, r.required, r.status])).toEqual([
      ['dkim', 'TXT', 's1._domainkey.example.com', `v=DKIM1; k=rsa; p=${key}`, true, 'unchecked'],
      ['spf', 'TXT', 'example.com', 'v=spf1 include:_spf.herald.test ~all', true, 'unchecked'],
      [
        'dmarc',
        'TXT',
        '_dmarc.example.com',
        'v=DMARC1; p=none; rua=mailto:dmarc@example.com',
        true,
        'unchecked',
      ],
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
      expect(dkim).toMatchObject({
        status: 'missing',
        problems: ['No TXT record found at s1._domainkey.example.com.'],
        found: [],
      });
      expect(domainVerified(records)).toBe(false);
      expect(checkComplete(records)).toBe(true);
    });

    it('is a mismatch when the published key is another one or cut short', async () => {
      dns.zone['s1._domainkey.example.com'] = { TXT: [`v=DKIM1; k=rsa; p=${publicKey()}`] };
      expect((await check()).dkim).toMatchObject({
        status: 'mismatch',
        problems: ['The published key differs from ours: copy the value again, whole.'],
      });
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
      expect((await check()).dkim).toMatchObject({
        status: 'invalid',
        problems: ['There are 2 DKIM records at s1._domainkey.example.com; keep only the one with our key.'],
      });
    });
  });
  describe('DMARC', () => {
    it('is missing without a v=DMARC1 record', async () => {
      dns.zone['_dmarc.example.com'] = { TXT: ['something else'] };
      expect((await check()).dmarc).toMatchObject({
        status: 'missing',
        problems: ['No DMARC record found at _dmarc.example.com.'],
      });
    });

    it('needs a p= policy that is none, quarantine or reject', async () => {
      dns.zone['_dmarc.example.com'] = { TXT: ['v=DMARC1; rua=mailto:dmarc@example.com'] };
      expect((await check()).dmarc).toMatchObject({
        status: 'invalid',
        problems: ['The DMARC record has no p= policy.'],
      });
      dns.zone['_dmarc.example.com'] = { TXT: ['v=DMARC1; p=block'] };
      expect((await check()).dmarc).toMatchObject({
        status: 'invalid',
        problems: ['The DMARC policy p=block is not one of none, quarantine or reject.'],
      });
      for (const policy of ['quarantine', 'reject']) {
        dns.zone['_dmarc.example.com'] = { TXT: [`v=DMARC1;p=${policy};pct=100`] };
        expect((await check()).dmarc.status).toBe('pass');
      }
    });

    it('is invalid with two records', async () => {
      dns.zone['_dmarc.example.com'] = { TXT: ['v=DMARC1; p=none', 'v=DMARC1; p=reject'] };
      expect((await check()).dmarc).toMatchObject({
        status: 'invalid',
        problems: [
          'There are 2 DMARC records at _dmarc.example.com; a domain must have exactly one (delete the others).',
        ],
      });
    });
  });

  describe('return path', () => {
    it('reports a CNAME pointing elsewhere or missing, without blocking verification', async () => {
      dns.zone['bounces.example.com'] = { CNAME: 'bounces.other.test' };
      const pointed = await check();
      expect(pointed.returnPath).toMatchObject({
        status: 'mismatch',
        problems: ['CNAME points to bounces.other.test instead of bounces.herald.test.'],
      });
      expect(domainVerified(pointed.records)).toBe(true);
      delete dns.zone['bounces.example.com'];
      const missing = await check();
      expect(missing.returnPath).toMatchObject({
        status: 'missing',
        problems: ['No CNAME record found at bounces.example.com.'],
      });
      expect(domainVerified(missing.records)).toBe(true);
    });
  });

  describe('when the DNS server does not answer', () => {
    it('a SERVFAIL makes the record unknown, never pass', async () => {
      dns.zone['s1._domainkey.example.com'] = { fail: 'servfail' };
      const { records, dkim, spf } = await check();
      expect(dkim).toMatchObject({
        status: 'unknown',
        problems: ['Could not check: the DNS server failed to answer (SERVFAIL).'],
        found: [],
      });
      expect(spf.status).toBe('pass');
      expect(checkComplete(records)).toBe(false);
      expect(domainVerified(records)).toBe(false);
    });

    it('a timeout makes the record unknown, also deep in an SPF include', async () => {
      dns.zone['_dmarc.example.com'] = { fail: 'timeout' };
      dns.zone['_spf.herald.test'] = { fail: 'timeout' };
      const { records, dmarc, spf, dkim } = await check();
      expect(dmarc).toMatchObject({
        status: 'unknown',
        problems: ['Could not check: the DNS server timed out.'],
      });
      expect(spf).toMatchObject({
        status: 'unknown',
        problems: ['Could not check: the DNS server timed out.'],
      });
      expect(dkim.status).toBe('pass');
      expect(checkComplete(records)).toBe(false);
    });
  });
});
