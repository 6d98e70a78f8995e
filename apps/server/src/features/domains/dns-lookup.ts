import { Resolver } from 'node:dns/promises';
import net from 'node:net';

/**
 * The DNS server could not give an answer (timeout, SERVFAIL, refused, unreachable): the record is neither
 * there nor absent, so a check must say "could not check" rather than pass or fail.
 */
export class DnsUnavailable extends Error {
  /** A short reason: 'timed out', 'SERVFAIL', 'refused', 'unreachable', … */
  readonly reason: string;
  /** The reason as the end of a sentence for people: "the DNS server timed out". */
  readonly explanation: string;

  constructor(name: string, reason: string, explanation: string) {
    super(`DNS lookup of ${name} failed: ${reason}`);
    this.name = 'DnsUnavailable';
    this.reason = reason;
    this.explanation = explanation;
  }
}

/** The two questions the domain checks ask. Both answer [] when the name or the record does not exist. */
export interface DnsLookup {
  /** TXT records at `name`, each record's character strings joined into one value. */
  txt(name: string): Promise<string[]>;
  /** CNAME targets at `name`, without a trailing dot. */
  cname(name: string): Promise<string[]>;
}

/** Answers that mean "no such record": the name does not exist (NXDOMAIN), has no record of the type (NODATA), or cannot exist. */
const absentCodes = new Set(['ENOTFOUND', 'ENODATA', 'EBADNAME']);

const unavailable: Record<string, [reason: string, explanation: string]> = {
  ETIMEOUT: ['timed out', 'the DNS server timed out'],
  ESERVFAIL: ['SERVFAIL', 'the DNS server failed to answer (SERVFAIL)'],
  EREFUSED: ['refused', 'the DNS server refused the question'],
  ECONNREFUSED: ['unreachable', 'the DNS server could not be reached'],
  ECANCELLED: ['cancelled', 'the DNS question was cancelled'],
  EDESTRUCTION: ['cancelled', 'the DNS question was cancelled'],
  EBADRESP: ['bad answer', 'the DNS server sent an answer that could not be read'],
  EFORMERR: ['bad answer', 'the DNS server sent an answer that could not be read'],
  ENOTIMP: ['not supported', 'the DNS server does not support this question'],
};

function toDnsError(name: string, error: unknown): DnsUnavailable | 'absent' {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && absentCodes.has(code)) return 'absent';
  const known = typeof code === 'string' ? unavailable[code] : undefined;
  if (known) return new DnsUnavailable(name, known[0], known[1]);
  const reason = typeof code === 'string' ? code : 'error';
  return new DnsUnavailable(name, reason, `the DNS lookup failed (${reason})`);
}

/** `1.2.3.4`, `1.2.3.4:5353`, `::1`, `[::1]:5353`: what `Resolver.setServers` accepts. */
function isServerAddress(server: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server);
  if (bracketed)
    return net.isIPv6(bracketed[1] ?? '') && (bracketed[2] === undefined || Number(bracketed[2]) <= 65535);
  if (net.isIP(server)) return true;
  const withPort = /^([\d.]+):(\d{1,5})$/.exec(server);
  return Boolean(withPort && net.isIPv4(withPort[1] ?? '') && Number(withPort[2]) <= 65535);
}

/**
 * TXT and CNAME lookups through node:dns (c-ares), asking `servers` (IP addresses, optionally with a port;
 * the system resolvers when empty) with two tries per server: c-ares waits `timeoutMs` for the first and twice
 * that for the second, so a silent server costs about three times `timeoutMs`.
 * NXDOMAIN and NODATA give []; every failure to get an answer throws DnsUnavailable, and nothing else is thrown.
 */
export function createDnsLookup({
  servers,
  timeoutMs,
}: {
  servers: readonly string[];
  timeoutMs: number;
}): DnsLookup {
  const wrong = servers.find((server) => !isServerAddress(server));
  if (wrong !== undefined) {
    throw new Error(
      `DNS_SERVERS: "${wrong}" is not an IP address (with an optional port, such as 127.0.0.1:5353 or [::1]:53).`,
    );
  }
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);

  async function ask<T>(name: string, question: () => Promise<T[]>): Promise<T[]> {
    try {
      return await question();
    } catch (error) {
      const failure = toDnsError(name, error);
      if (failure === 'absent') return [];
      throw failure;
    }
  }

  return {
    txt: (name) =>
      ask(name, async () => (await resolver.resolveTxt(name)).map((strings) => strings.join(''))),
    cname: (name) =>
      ask(name, async () => (await resolver.resolveCname(name)).map((target) => target.replace(/\.$/, ''))),
  };
}
