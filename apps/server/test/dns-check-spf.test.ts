import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DnsLookup } from '../src/features/domains/dns-lookup.ts';
import {
  countLookups,
  parseSpf,
  spfLookupMechanisms,
  type SpfMechanism,
} from '../src/features/domains/spf.ts';
import { check, dns, expectation, lookup, useDnsZone } from './dns-check-fixtures.ts';

// The check of a domain's SPF record (one record, lookups counted through nested includes, loops, +all, our include)
// and properties of the SPF parser.
useDnsZone();

describe('checking a domain', () => {
  describe('SPF', () => {
    it('is missing without a v=spf1 record', async () => {
      dns.zone['example.com'] = { TXT: ['google-site-verification=abc123'] };
      const { spf } = await check();
      expect(spf).toMatchObject({
        status: 'missing',
        problems: ['No SPF record found at example.com.'],
        value: 'v=spf1 include:_spf.herald.test ~all',
      });
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
      dns.zone['_spf2.example.com'] = {
        TXT: ['v=spf1 a a:x.example.com mx:y.example.com exists:%{i}.e.example.com ptr:z.example.com ?all'],
      };
      expect(await countLookups(dns.zone['example.com'].TXT![0]!, lookup, { domain: 'example.com' })).toEqual(
        {
          lookups: 12,
          problems: [],
          domains: ['_spf.herald.test', '_spf.example.com', '_spf2.example.com'],
        },
      );
      expect((await check()).spf).toMatchObject({
        status: 'invalid',
        problems: ['SPF needs 12 DNS lookups; the limit is 10.'],
      });
      dns.zone['_spf2.example.com'] = { TXT: ['v=spf1 a a:x.example.com mx:y.example.com ?all'] };
      expect((await check()).spf.status).toBe('pass');
    });

    it('catches an include loop and a redirect loop', async () => {
      dns.zone['example.com'] = { TXT: ['v=spf1 include:_spf.herald.test include:a.example.net ~all'] };
      dns.zone['a.example.net'] = { TXT: ['v=spf1 include:b.example.net'] };
      dns.zone['b.example.net'] = { TXT: ['v=spf1 redirect=example.com'] };
      const { spf } = await check();
      expect(spf.status).toBe('invalid');
      expect(spf.problems).toEqual([
        'The SPF record includes itself in a loop: example.com → a.example.net → b.example.net → example.com.',
      ]);
      const self = await countLookups('v=spf1 redirect=a.example.net', {
        txt: async (name) => [`v=spf1 redirect=${name === 'a.example.net' ? 'b' : 'a'}.example.net`],
        cname: async () => [],
      });
      expect(self.problems).toEqual([
        'The SPF record includes itself in a loop: a.example.net → b.example.net → a.example.net.',
      ]);
    });

    it('reports a nested record that is missing or broken', async () => {
      dns.zone['example.com'] = {
        TXT: ['v=spf1 include:_spf.herald.test include:gone.example.net include:bad.example.net ~all'],
      };
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
      expect((await check()).spf).toMatchObject({
        status: 'invalid',
        problems: ['The SPF record has a mistake: "include" needs a domain, as in include:_spf.example.com.'],
      });
    });

    it('refuses +all, written or implied', async () => {
      for (const all of ['+all', 'all']) {
        dns.zone['example.com'] = { TXT: [`v=spf1 include:_spf.herald.test ${all}`] };
        expect((await check()).spf).toMatchObject({
          status: 'invalid',
          problems: ['SPF ends in +all, which lets anyone send as you.'],
        });
      }
    });

    it('must include the configured domain, directly or through an include; any valid record passes without one', async () => {
      dns.zone['example.com'] = { TXT: ['v=spf1 mx ~all'] };
      expect((await check()).spf).toMatchObject({
        status: 'mismatch',
        problems: ['The SPF record does not include _spf.herald.test.'],
        value: 'include:_spf.herald.test',
      });
      const { spf } = await check({ ...expectation, spfInclude: undefined });
      expect(spf).toMatchObject({ status: 'pass', value: 'v=spf1 mx ~all' });
      dns.zone['example.com'] = { TXT: ['v=spf1 include:_spf.example.com -all'] };
      dns.zone['_spf.example.com'] = { TXT: ['v=spf1 ip4:198.51.100.7 include:_spf.herald.test -all'] };
      expect((await check()).spf.status).toBe('pass');
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Properties of the SPF parser

const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}[a-z0-9]$/);
const domainName = fc
  .tuple(
    fc.constantFrom('', '_spf.', 'mail.'),
    fc.array(label, { minLength: 1, maxLength: 3 }),
    fc.stringMatching(/^[a-z]{2,6}$/),
  )
  .map(([prefix, labels, top]) => `${prefix}${labels.join('.')}.${top}`);
const qualifier = fc.constantFrom('+', '-', '~', '?') as fc.Arbitrary<SpfMechanism['qualifier']>;
const prefixOf = (max: number) => fc.option(fc.integer({ min: 0, max }), { nil: undefined });
const mechanism: fc.Arbitrary<SpfMechanism> = fc.oneof(
  fc.record({ qualifier, name: fc.constant('all' as const) }),
  fc.record({ qualifier, name: fc.constantFrom('include' as const, 'exists' as const), domain: domainName }),
  fc.record(
    { qualifier, name: fc.constant('ptr' as const), domain: fc.option(domainName, { nil: undefined }) },
    { requiredKeys: ['qualifier', 'name'] },
  ),
  fc.record(
    {
      qualifier,
      name: fc.constantFrom('a' as const, 'mx' as const),
      domain: fc.option(domainName, { nil: undefined }),
      prefix: prefixOf(32),
      prefix6: prefixOf(128),
    },
    { requiredKeys: ['qualifier', 'name'] },
  ),
  fc.record(
    { qualifier, name: fc.constant('ip4' as const), network: fc.ipV4(), prefix: prefixOf(32) },
    { requiredKeys: ['qualifier', 'name', 'network'] },
  ),
  fc.record(
    { qualifier, name: fc.constant('ip6' as const), network: fc.ipV6(), prefix: prefixOf(128) },
    { requiredKeys: ['qualifier', 'name', 'network'] },
  ),
);
/** Written as a publisher might: '+' left out or not, the name in any case. */
const written = fc.tuple(mechanism, fc.boolean(), fc.boolean()).map(([m, writesPlus, upper]) => {
  const name = upper ? m.name.toUpperCase() : m.name;
  const text = `${m.qualifier === '+' && !writesPlus ? '' : m.qualifier}${name}${m.domain !== undefined ? `:${m.domain}` : ''}${m.network !== undefined ? `:${m.network}` : ''}${m.prefix !== undefined ? `/${m.prefix}` : ''}${m.prefix6 !== undefined ? `//${m.prefix6}` : ''}`;
  return {
    mechanism: Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as SpfMechanism,
    text,
  };
});
const spfPieces = fc.constantFrom(
  'v=spf1',
  'include:',
  'a',
  'mx',
  '/',
  '//',
  ':',
  '%{d}',
  '%',
  '=',
  'redirect=',
  'ip4:',
  'ip6:',
  '1.2.3.4',
  '::1',
  '+',
  '-',
  ' ',
  'all',
  '.com',
  'x',
);

describe('SPF parser properties', () => {
  it('never throws on any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.array(spfPieces).map((p) => `v=spf1 ${p.join('')}`),
        ),
        (text) => {
          const result = parseSpf(text);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads back the mechanisms of a generated valid record', () => {
    fc.assert(
      fc.property(fc.array(written, { maxLength: 12 }), (terms) => {
        const result = parseSpf(['v=spf1', ...terms.map((t) => t.text)].join(' '));
        expect(result).toEqual({
          ok: true,
          record: { mechanisms: terms.map((t) => t.mechanism), modifiers: [] },
        });
      }),
      { numRuns: 500 },
    );
  });

  it('counts one lookup per lookup mechanism in a flat record', async () => {
    const flat: DnsLookup = { txt: async () => ['v=spf1 -all'], cname: async () => [] };
    await fc.assert(
      fc.asyncProperty(fc.array(written, { maxLength: 15 }), async (terms) => {
        const count = await countLookups(['v=spf1', ...terms.map((t) => t.text)].join(' '), flat);
        expect(count.lookups).toBe(
          terms.filter((t) => spfLookupMechanisms.includes(t.mechanism.name)).length,
        );
        expect(count.problems).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
