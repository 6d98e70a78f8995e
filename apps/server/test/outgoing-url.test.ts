import fc from 'fast-check';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkOutgoingUrl,
  fetchOutgoing,
  isBlockedAddress,
  outgoingMessages,
  parseIpv6,
  type LookupAll,
} from '../src/lib/outgoing-url.ts';

/** The refused IPv4 ranges, checked by node's own BlockList (an implementation independent of the one under test). */
const reference = new net.BlockList();
for (const [base, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  reference.addSubnet(base, bits, 'ipv4');

const octets = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const dotted = (n: number) => octets(n).join('.');
/** The spellings of one IPv4 address a URL accepts: dotted, one decimal number, hex, octal, and the short a.b.c form. */
const spellings = (n: number) => {
  const [a = 0, b = 0, c = 0, d = 0] = octets(n);
  return [
    dotted(n),
    String(n),
    `0x${n.toString(16)}`,
    [a, b, c, d].map((o) => `0${o.toString(8)}`).join('.'),
    `${a}.${b}.${(c << 8) + d}`,
    `0x${a.toString(16)}.${b}.${c}.${d}`,
  ];
};
const privateRanges: [number, number][] = [
  [0x7f000000, 8],
  [0x0a000000, 8],
  [0xac100000, 12],
  [0xc0a80000, 16],
  [0xa9fe0000, 16],
  [0x64400000, 10],
  [0xe0000000, 4],
  [0x00000000, 8],
];
const privateV4 = fc
  .constantFrom(...privateRanges)
  .chain(([base, bits]) =>
    fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => (base + offset) >>> 0),
  );
const publicV4 = fc.integer({ min: 0, max: 0xffffffff }).filter((n) => !reference.check(dotted(n), 'ipv4'));
const hex4 = (n: number) => n.toString(16);

describe('checkOutgoingUrl: literal addresses', () => {
  it('refuses every private, loopback, link-local, CGNAT, multicast and unspecified IPv4 address, in any spelling', async () => {
    await fc.assert(
      fc.asyncProperty(privateV4, fc.constantFrom('http', 'https'), async (n, scheme) => {
        for (const host of spellings(n))
          expect(await checkOutgoingUrl(`${scheme}://${host}/hook`), host).toBe(outgoingMessages.private);
      }),
    );
  });

  it('allows public IPv4 addresses and judges each one as the reference does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 0xffffffff }), async (n) => {
        expect(await checkOutgoingUrl(`https://${dotted(n)}/x`)).toBe(
          reference.check(dotted(n), 'ipv4') ? outgoingMessages.private : null,
        );
      }),
    );
    await fc.assert(
      fc.asyncProperty(publicV4, async (n) => {
        expect(await checkOutgoingUrl(`http://${String(n)}:8080/`)).toBeNull();
      }),
    );
  });

  it('judges IPv4-mapped, IPv4-translated, NAT64 and 6to4 IPv6 addresses by the IPv4 address inside', async () => {
    const forms = (n: number) => {
      const high = hex4(n >>> 16);
      const low = hex4(n & 0xffff);
      return [
        `::ffff:${dotted(n)}`,
        `::ffff:${high}:${low}`,
        `0:0:0:0:0:ffff:${high}:${low}`,
        `::ffff:0:${dotted(n)}`,
        `64:ff9b::${dotted(n)}`,
        `2002:${high}:${low}::1`,
      ];
    };
    await fc.assert(
      fc.asyncProperty(privateV4, async (n) => {
        for (const host of forms(n))
          expect(await checkOutgoingUrl(`http://[${host}]/`), host).toBe(outgoingMessages.private);
      }),
    );
    await fc.assert(
      fc.asyncProperty(publicV4, async (n) => {
        for (const host of forms(n)) expect(await checkOutgoingUrl(`http://[${host}]/`), host).toBeNull();
      }),
    );
  });

  it('refuses loopback, unspecified, unique-local, link-local, site-local, multicast and documentation IPv6 addresses', async () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    const prefixed = (first: fc.Arbitrary<number>) =>
      fc
        .tuple(first, fc.array(group, { minLength: 7, maxLength: 7 }))
        .map(([g, rest]) => [g, ...rest].map(hex4).join(':'));
    const refused = fc.oneof(
      prefixed(fc.integer({ min: 0xfc00, max: 0xfdff })),
      prefixed(fc.integer({ min: 0xfe80, max: 0xfebf })),
      prefixed(fc.integer({ min: 0xfec0, max: 0xfeff })),
      prefixed(fc.integer({ min: 0xff00, max: 0xffff })),
      fc
        .array(group, { minLength: 6, maxLength: 6 })
        .map((rest) => ['2001', 'db8', ...rest.map(hex4)].join(':')),
      fc.constantFrom('::1', '::', '0:0:0:0:0:0:0:1', '0000:0000:0000:0000:0000:0000:0000:0000', '::0.0.0.1'),
    );
    await fc.assert(
      fc.asyncProperty(refused, async (host) => {
        expect(await checkOutgoingUrl(`https://[${host}]:443/`), host).toBe(outgoingMessages.private);
      }),
    );
    // Global unicast 2000::/3 outside the special blocks is allowed.
    const global = prefixed(fc.integer({ min: 0x2400, max: 0x3fff }));
    await fc.assert(
      fc.asyncProperty(global, async (host) => {
        expect(await checkOutgoingUrl(`https://[${host}]/`), host).toBeNull();
      }),
    );
  });

  it('parses IPv6 text as node does', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const groups = parseIpv6(address);
        expect(groups).not.toBeNull();
        const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
        expect(parseIpv6(canonical)).toEqual(groups);
      }),
    );
    expect(parseIpv6('1::2::3')).toBeNull();
    expect(parseIpv6('12345::')).toBeNull();
    expect(isBlockedAddress('not-an-address')).toBe(true);
  });

  it('refuses other schemes, credentials and malformed addresses with their own messages', async () => {
    for (const url of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'gopher://example.com/',
    ])
      expect(await checkOutgoingUrl(url)).toBe(outgoingMessages.protocol);
    expect(await checkOutgoingUrl('https://user:pass@example.com/')).toBe(outgoingMessages.credentials);
    expect(await checkOutgoingUrl('example.com/hook')).toBe(outgoingMessages.invalid);
    expect(await checkOutgoingUrl('http://localhost:3000/')).toBe(outgoingMessages.private);
    expect(await checkOutgoingUrl('http://api.localhost/')).toBe(outgoingMessages.private);
    // The root's trailing dot changes nothing, whatever a resolver answers for the name.
    const answersPublic: LookupAll = async () => [{ address: '93.184.215.14', family: 4 }];
    for (const url of ['http://localhost./', 'http://LOCALHOST.localdomain./', 'http://api.localhost./']) {
      expect(await checkOutgoingUrl(url, { lookup: answersPublic }), url).toBe(outgoingMessages.private);
      await expect(fetchOutgoing(url, { lookup: answersPublic }), url).rejects.toThrow(
        outgoingMessages.private,
      );
    }
  });
});

describe('checkOutgoingUrl: host names', () => {
  const zone: Record<string, string[]> = {
    'public.test': ['93.184.216.34'],
    'private.test': ['10.1.2.3'],
    'mixed.test': ['93.184.216.34', '192.168.1.1'],
    'metadata.test': ['169.254.169.254'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'v6.test': ['2606:4700::1111'],
  };
  const lookup: LookupAll = async (name) => {
    const answers = zone[name];
    if (!answers) throw Object.assign(new Error(`queryA ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: net.isIP(address) }));
  };

  it('refuses a name when any of its answers is a refused address', async () => {
    expect(await checkOutgoingUrl('https://public.test/hook', { lookup })).toBeNull();
    expect(await checkOutgoingUrl('https://v6.test/hook', { lookup })).toBeNull();
    for (const name of ['private.test', 'mixed.test', 'metadata.test', 'mapped.test'])
      expect(await checkOutgoingUrl(`https://${name}/hook`, { lookup }), name).toBe(outgoingMessages.private);
  });

  it('allows a name that does not resolve now (fetchOutgoing judges it when called)', async () => {
    expect(await checkOutgoingUrl('https://nowhere.test/', { lookup })).toBeNull();
  });

  it('asks the system resolver by default (localhost.localdomain is refused, not an error)', async () => {
    expect(await checkOutgoingUrl('http://localhost.localdomain/')).toBe(outgoingMessages.private);
  });
});

describe('fetchOutgoing', () => {
  let server: http.Server;
  let port = 0;
  const seen: { method: string; url: string; body: string }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body });
        const url = new URL(req.url ?? '/', 'http://x');
        const to = url.searchParams.get('to');
        if (url.pathname === '/redirect' && to) {
          res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to });
          res.end();
        } else if (url.pathname === '/loop') {
          res.writeHead(302, { location: '/loop' });
          res.end();
        } else if (url.pathname === '/slow') {
          setTimeout(() => res.end('late'), 2000);
        } else if (url.pathname === '/big') {
          res.end('x'.repeat(5000));
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(`${req.method} ${body}`);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const trusted = { trustedAddresses: ['127.0.0.1'] };
  /** hook.test answers the test server's address; rebind.test answers a public address once, then loopback. */
  const lookup: LookupAll = async (name) => {
    if (name === 'hook.test') return [{ address: '127.0.0.1', family: 4 }];
    if (name === 'inner.test') return [{ address: '10.0.0.7', family: 4 }];
    throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };

  it('calls an allowed address, with method and body, through the pinned lookup', async () => {
    const response = await fetchOutgoing(`http://hook.test:${port}/ok`, {
      ...trusted,
      lookup,
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toBe('POST {"a":1}');
  });

  it('refuses a loopback address unless the operator trusts it, before connecting', async () => {
    const before = seen.length;
    await expect(fetchOutgoing(`http://127.0.0.1:${port}/ok`)).rejects.toMatchObject({
      message: outgoingMessages.private,
      reason: 'refused',
    });
    await expect(fetchOutgoing(`http://2130706433:${port}/ok`)).rejects.toMatchObject({
      message: outgoingMessages.private,
    });
    await expect(fetchOutgoing(`http://hook.test:${port}/ok`, { lookup })).rejects.toMatchObject({
      message: outgoingMessages.private,
    });
    expect(seen.length).toBe(before);
  });

  it('judges the DNS answer at connect time: a name that answered a public address before answers loopback now', async () => {
    let calls = 0;
    const rebinding: LookupAll = async () =>
      calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    expect(await checkOutgoingUrl(`http://rebind.test:${port}/ok`, { lookup: rebinding })).toBeNull();
    const before = seen.length;
    await expect(fetchOutgoing(`http://rebind.test:${port}/ok`, { lookup: rebinding })).rejects.toMatchObject(
      { message: outgoingMessages.private },
    );
    expect(seen.length).toBe(before);
  });

  it('follows a redirect but never to a refused address, literal or resolved', async () => {
    const ok = await fetchOutgoing(
      `http://127.0.0.1:${port}/redirect?to=${encodeURIComponent('/ok')}`,
      trusted,
    );
    expect(ok.status).toBe(200);
    expect(ok.url).toBe(`http://127.0.0.1:${port}/ok`);
    for (const to of [
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${port}/ok`,
      'http://0x7f000002/',
      `http://inner.test:${port}/`,
      'http://localhost/',
    ]) {
      await expect(
        fetchOutgoing(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(to)}`, {
          ...trusted,
          lookup,
        }),
        to,
      ).rejects.toMatchObject({ message: outgoingMessages.private, reason: 'refused' });
    }
    await expect(
      fetchOutgoing(
        `http://127.0.0.1:${port}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`,
        trusted,
      ),
    ).rejects.toMatchObject({ message: outgoingMessages.badRedirect });
  });

  it('turns a POST into a GET on 303 and stops after 3 redirects', async () => {
    seen.length = 0;
    const response = await fetchOutgoing(`http://127.0.0.1:${port}/redirect?status=303&to=%2Fok`, {
      ...trusted,
      method: 'POST',
      body: 'x',
    });
    expect(response.body).toBe('GET ');
    seen.length = 0;
    await expect(fetchOutgoing(`http://127.0.0.1:${port}/loop`, trusted)).rejects.toMatchObject({
      message: outgoingMessages.tooManyRedirects,
    });
    expect(seen.length).toBe(4);
  });

  it('gives up on a slow answer and on a large one', async () => {
    await expect(
      fetchOutgoing(`http://127.0.0.1:${port}/slow`, { ...trusted, timeoutMs: 200 }),
    ).rejects.toMatchObject({ message: outgoingMessages.timeout });
    await expect(
      fetchOutgoing(`http://127.0.0.1:${port}/big`, { ...trusted, maxResponseBytes: 1000 }),
    ).rejects.toMatchObject({ message: outgoingMessages.tooLarge });
  });
});
