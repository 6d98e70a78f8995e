import net from 'node:net';

/**
 * The IP addresses a call to a user-given URL must never reach (outgoing-url.ts): loopback, private, link-local,
 * unique-local, CGNAT, multicast, documentation and reserved ranges, and the unspecified address; IPv4-mapped,
 * NAT64 and 6to4 IPv6 addresses are judged by the IPv4 address inside.
 */

/** Blocked IPv4 ranges as [first address as a number, prefix length]. */
const blockedV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network", including the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata at 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
];
const blockedV4Ranges = blockedV4.map(([base, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: ((ipv4ToNumber(base) ?? 0) & mask) >>> 0, mask };
});

/** Dotted-quad IPv4 (the canonical form) as an unsigned 32-bit number, or null. */
export function ipv4ToNumber(address: string): number | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

/** IPv6 text (with `::` and an optional trailing dotted IPv4, no zone) as eight 16-bit groups, or null. */
export function parseIpv6(address: string): number[] | null {
  let text = address;
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = ipv4ToNumber(text.slice(lastColon + 1));
    if (v4 === null) return null;
    tail.push(v4 >>> 16, v4 & 0xffff);
    // Keep the groups before the IPv4 part: "::ffff:" → "::ffff", "::" stays "::".
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string): number[] | null => {
    if (s === '') return [];
    const groups = s.split(':');
    const out: number[] = [];
    for (const g of groups) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0] ?? '');
  if (!head) return null;
  if (halves.length === 1) {
    const groups = [...head, ...tail];
    return groups.length === 8 ? groups : null;
  }
  const rest = parse(halves[1] ?? '');
  if (!rest) return null;
  const known = head.length + rest.length + tail.length;
  if (known > 7) return null;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
}

function isBlockedIpv4Number(value: number): boolean {
  return blockedV4Ranges.some(({ base, mask }) => (value & mask) >>> 0 === base);
}

function isBlockedIpv6(groups: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embedded = ((g6 << 16) >>> 0) + g7;
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  // ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (IPv4-translated): judged as the IPv4 address.
  if (firstFiveZero && g5 === 0xffff) return isBlockedIpv4Number(embedded);
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0)
    return isBlockedIpv4Number(embedded);
  // ::/96: the unspecified and loopback addresses and the deprecated IPv4-compatible form.
  if (firstFiveZero && g5 === 0) return true;
  // 64:ff9b::/96 (NAT64): the IPv4 address inside decides; 64:ff9b:1::/48 is local-use NAT64.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)
    return isBlockedIpv4Number(embedded);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true;
  // 2002::/16 (6to4): the IPv4 address in groups 1–2 decides.
  if (g0 === 0x2002) return isBlockedIpv4Number(((g1 << 16) >>> 0) + g2);
  if (g0 === 0x2001 && g1 === 0) return true; // Teredo tunnels (the IPv4 inside is obscured)
  if (g0 === 0x2001 && g1 === 0xdb8) return true; // documentation
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true; // discard-only
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique-local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return true; // deprecated site-local fec0::/10
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/** True when an IP address (IPv4 dotted or IPv6 text) must not be called; anything that is not an IP address is refused too. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = net.isIP(bare.split('%')[0] ?? '');
  if (family === 4) return isBlockedIpv4Number(ipv4ToNumber(bare) ?? 0);
  if (family === 6) {
    const groups = parseIpv6(bare);
    return groups === null || isBlockedIpv6(groups);
  }
  return true;
}
