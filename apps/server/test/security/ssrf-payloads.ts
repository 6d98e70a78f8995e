import type { SsrfDnsEntry } from './ssrf-net.ts';

/**
 * Hostile addresses for every outgoing call. Each host is written into `http://<host>:<port>/hook` with the targets'
 * port (so that a call that got out would land on a counting listener), and the metadata ones also without a port.
 */

/** Hosts that are loopback, private, link-local, metadata or mapped, in the spellings attackers use. */
export function hostilePayloads(ownAddresses: readonly string[]): { kind: string; host: string }[] {
  const list: [string, string[]][] = [
    [
      'loopback',
      [
        '127.0.0.1',
        '127.1',
        '127.0.1',
        '127.255.255.254',
        '0.0.0.0',
        '0',
        '[::1]',
        '[0:0:0:0:0:0:0:1]',
        '[::]',
        'localhost',
        'LOCALHOST',
        'app.localhost',
        'localhost.localdomain',
        'localhost.',
        'LocalHost.LocalDomain.',
        'app.localhost.',
      ],
    ],
    [
      'private',
      [
        '10.0.0.1',
        '10.255.255.254',
        '172.16.0.1',
        '172.31.255.254',
        '192.168.0.1',
        '192.168.255.254',
        '100.64.0.1',
        '[fc00::1]',
        '[fd12:3456:789a::1]',
      ],
    ],
    ['link-local', ['169.254.0.1', '169.254.169.254', '[fe80::1]', '[fe80::fc:ff:fe00:1]']],
    [
      'metadata',
      [
        '169.254.169.254',
        '169.254.170.2',
        '100.100.100.200',
        '[fd00:ec2::254]',
        'metadata.google.internal',
        'metadata',
        'instance-data.ec2.internal',
      ],
    ],
    [
      'mapped',
      [
        '[::ffff:127.0.0.1]',
        '[::ffff:7f00:1]',
        '[0:0:0:0:0:ffff:7f00:1]',
        '[::ffff:10.0.0.1]',
        '[::ffff:169.254.169.254]',
        '[::ffff:0:127.0.0.1]',
        '[::127.0.0.1]',
        '[64:ff9b::7f00:1]',
        '[2002:7f00:1::1]',
      ],
    ],
    [
      'spelling',
      [
        '2130706433',
        '0x7f000001',
        '0x7f.0.0.1',
        '0x7f.1',
        '0177.0.0.1',
        '0177.1',
        '017700000001',
        '127.000.000.001',
        '3232235521',
        '0xa9fea9fe',
        '2852039166',
        '0251.0376.0251.0376',
        '167772161',
      ],
    ],
    ['own-address', ownAddresses.map((a) => (a.includes(':') ? `[${a}]` : a))],
    ['dns', Object.keys(hostileZone).filter((name) => !hostileZone[name]!.sequence)],
  ];
  return list.flatMap(([kind, hosts]) => hosts.map((host) => ({ kind, host })));
}

export const hookUrl = (host: string, port: number) => `http://${host}:${port}/hook`;

/** Metadata URLs as written, without a port (they would go to port 80). */
export const metadataUrls = [
  'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://100.100.100.200/latest/meta-data/',
  'https://169.254.169.254/metadata/instance?api-version=2021-02-01',
];

/** Names the test DNS server answers with private addresses (A, AAAA, or both, sometimes mixed with a trusted one). */
export const hostileZone: Record<string, SsrfDnsEntry> = {
  'metadata.google.internal': { A: ['169.254.169.254'] },
  metadata: { A: ['169.254.169.254'] },
  'instance-data.ec2.internal': { A: ['169.254.169.254'], AAAA: ['fd00:ec2::254'] },
  'loop.ssrf.test': { A: ['127.0.0.1'] },
  'loop6.ssrf.test': { AAAA: ['::1'] },
  'mapped.ssrf.test': { AAAA: ['::ffff:127.0.0.1'] },
  'private.ssrf.test': { A: ['10.0.0.5'] },
  'rfc1918.ssrf.test': { A: ['192.168.1.1', '172.16.0.1'] },
  'meta.ssrf.test': { A: ['169.254.169.254'] },
  'ula.ssrf.test': { AAAA: ['fd00::2'] },
  'linklocal6.ssrf.test': { AAAA: ['fe80::1'] },
  'zero.ssrf.test': { A: ['0.0.0.0'] },
  // A trusted answer first and a private one after it: the private one must not be used.
  'mixed.ssrf.test': { A: ['127.0.0.2', '127.0.0.1'] },
  'mixed6.ssrf.test': { A: ['127.0.0.2'], AAAA: ['::1'] },
  'own.ssrf.test': { A: ['192.0.2.2'], AAAA: ['fd00::2'] },
};

/** Private answers a rebinding name turns to after answering the trusted address first. */
export const rebindAnswers: { A?: string[]; AAAA?: string[] }[] = [
  { A: ['127.0.0.1'] },
  { AAAA: ['::1'] },
  { AAAA: ['::ffff:127.0.0.1'] },
  { A: ['169.254.169.254'] },
  { A: ['10.0.0.1'] },
  { A: ['0.0.0.0'] },
  { AAAA: ['fd00::2'] },
];

/** A name that answers the trusted address `first` times, then `to`. */
export const rebinding = (to: { A?: string[]; AAAA?: string[] }, first = 1): SsrfDnsEntry => ({
  sequence: [...Array.from({ length: first }, () => ({ A: ['127.0.0.2'] })), to],
});
