import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayDomain, reduceDomain } from '../src/domains.ts';

describe('reduceDomain', () => {
  it('reduces what people paste to the domain', () => {
    expect(reduceDomain('https://www.Example.com:8443/path?q=1#top')).toBe('example.com');
    expect(reduceDomain('user:pw@mail.example.co.uk/')).toBe('mail.example.co.uk');
    expect(reduceDomain('example.com.')).toBe('example.com');
    expect(reduceDomain('Bücher.example')).toBeNull(); // .example is reserved
    expect(reduceDomain('bücher.de')).toBe('xn--bcher-kva.de');
    expect(reduceDomain('xn--bcher-kva.de')).toBe('xn--bcher-kva.de');
    expect(reduceDomain('пример.рф')).toBe('xn--e1afmkfd.xn--p1ai');
  });

  it('refuses what cannot be a public mail domain', () => {
    const bad = [
      '',
      'localhost',
      'example',
      '127.0.0.1',
      '10.0.0.1',
      '[::1]',
      'foo.local',
      'a.internal',
      `${'a'.repeat(64)}.com`,
      `${Array.from({ length: 60 }, () => 'abcd').join('.')}.com`,
      '-bad.com',
      'bad-.com',
      'ex ample.com',
      'a..b.com',
      'xn--.com',
      'аpple.com',
      'xn--pple-43d.com',
      'раураl.com',
      'ab--cd.com',
      'example.c0m',
      'example.123',
    ];
    for (const input of bad) expect(reduceDomain(input), input).toBeNull();
  });

  it('is idempotent, never throws, and returns only lower-case ASCII names within the DNS limits', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.domain(), fc.webUrl(), fc.string({ unit: 'grapheme' })),
        (input) => {
          const domain = reduceDomain(input);
          if (domain === null) return;
          expect(domain).toMatch(/^[a-z0-9.-]+$/);
          expect(domain.length).toBeLessThanOrEqual(253);
          expect(domain.split('.').every((label) => label.length >= 1 && label.length <= 63)).toBe(true);
          expect(reduceDomain(domain)).toBe(domain);
        },
      ),
      { numRuns: 1000 },
    );
  }, 30_000);

  it('keeps every generated public domain as it is (lower-cased), and shows punycode as Unicode', () => {
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        const tld = domain.split('.').pop()!;
        fc.pre(
          /^[a-z]{2,63}$/.test(tld) &&
            ![
              'local',
              'localhost',
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
            ].includes(tld),
        );
        fc.pre(
          !domain.split('.').some((l) => /^..--/.test(l) && !l.startsWith('xn--')) &&
            !domain.includes('xn--'),
        );
        expect(reduceDomain(`https://${domain}/x`)).toBe(domain.toLowerCase().replace(/^www\./, ''));
      }),
      { numRuns: 500 },
    );
    expect(displayDomain('xn--bcher-kva.de')).toBe('bücher.de');
  }, 30_000);
});
