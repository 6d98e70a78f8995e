import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { isBlockedAddress } from './blocked-addresses.ts';

/**
 * Requests Herald makes to URLs a user typed (webhook steps). They must never reach the machine's own network
 * (SSRF, docs/security.md: Mautic's webhooks): loopback, private, link-local, unique-local, CGNAT, multicast and the
 * unspecified address are refused, written in any form (the WHATWG URL parser turns `2130706433`, `0x7f.1` and
 * `0177.0.0.1` into 127.0.0.1; IPv4-mapped, NAT64 and 6to4 IPv6 addresses are judged by the IPv4 address inside).
 * `checkOutgoingUrl` is the check when a URL is saved; `fetchOutgoing` checks the address the socket actually
 * connects to (the DNS answer is judged inside the connection's own lookup, so a name that changes its answer
 * between the check and the call gains nothing) and follows redirects itself, judging each one the same way.
 */

// Which addresses are refused is decided in blocked-addresses.ts; its helpers are exported from here as before.
export { ipv4ToNumber, isBlockedAddress, parseIpv6 } from './blocked-addresses.ts';

export const outgoingMessages = {
  private: 'Webhooks cannot call private, loopback or link-local addresses.',
  protocol: 'Use an http:// or https:// address.',
  invalid: 'Enter a full web address, such as https://example.com/hook.',
  credentials: 'Put credentials in a header, not in the address.',
  tooManyRedirects: 'The webhook redirected more than 3 times.',
  badRedirect: 'The webhook redirected to an address that is not a web address.',
  timeout: 'The webhook did not answer in time.',
  tooLarge: 'The webhook answered with more data than Herald reads.',
} as const;

export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * A lookup through given DNS servers (c-ares, `ip` or `ip:port`): the A and AAAA answers together, each name asked
 * afresh (no cache, so what is judged is what the server answers now). A name with neither fails as ENOTFOUND.
 */
function serverLookup(servers: readonly string[]): LookupAll {
  const resolver = new dns.promises.Resolver({ timeout: 3000, tries: 2 });
  resolver.setServers([...servers]);
  return async (hostname) => {
    const ask = async (family: 4 | 6) => {
      try {
        const found = family === 4 ? await resolver.resolve4(hostname) : await resolver.resolve6(hostname);
        return found.map((address) => ({ address, family }));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
        throw error;
      }
    };
    const all = [...(await ask(4)), ...(await ask(6))];
    if (all.length === 0) throw Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' });
    return all;
  };
}

const serverLookups = new Map<string, LookupAll>();
function lookupOf(options: OutgoingOptions): LookupAll {
  if (options.lookup) return options.lookup;
  const servers = options.dnsServers ?? [];
  if (servers.length === 0) return systemLookup;
  const key = servers.join(',');
  let lookup = serverLookups.get(key);
  if (!lookup) serverLookups.set(key, (lookup = serverLookup(servers)));
  return lookup;
}

export type OutgoingOptions = {
  /** Resolves a host name to all its addresses; the system resolver by default. */
  lookup?: LookupAll;
  /** DNS servers (`ip` or `ip:port`) to resolve names through instead of the system resolver (OUTGOING_DNS_SERVERS). */
  dnsServers?: readonly string[];
  /** Addresses the operator trusts despite the rules (a self-hosted install calling its own services). */
  trustedAddresses?: readonly string[];
};

const isRefused = (address: string, options: OutgoingOptions) =>
  isBlockedAddress(address) && !(options.trustedAddresses ?? []).includes(address);

/** The URL's host without IPv6 brackets, lower-cased. */
function hostOf(url: URL): string {
  const host = url.hostname.toLowerCase();
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function parseOutgoing(raw: string): { url: URL } | { problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: outgoingMessages.invalid };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: outgoingMessages.protocol };
  if (url.username || url.password) return { problem: outgoingMessages.credentials };
  if (!url.hostname) return { problem: outgoingMessages.invalid };
  return { url };
}

/** Names that mean this machine whatever a resolver says, with or without the root's trailing dot (`localhost.`). */
const isLocalName = (name: string) => {
  const host = name.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.localdomain';
};

/**
 * Whether Herald may call this URL: null when allowed, else the message to show. A host name is refused when any
 * of its DNS answers is a refused address; a name that does not resolve now is allowed (it is judged again when
 * called, by `fetchOutgoing`).
 */
export async function checkOutgoingUrl(raw: string, options: OutgoingOptions = {}): Promise<string | null> {
  const parsed = parseOutgoing(raw);
  if ('problem' in parsed) return parsed.problem;
  const host = hostOf(parsed.url);
  if (net.isIP(host)) return isRefused(host, options) ? outgoingMessages.private : null;
  if (isLocalName(host)) return outgoingMessages.private;
  let answers: { address: string }[];
  try {
    answers = await lookupOf(options)(host);
  } catch {
    return null;
  }
  return answers.some((a) => isRefused(a.address, options)) ? outgoingMessages.private : null;
}

/** Raised by fetchOutgoing when a call is refused or fails; `message` is fit to show to the user. */
export class OutgoingError extends Error {
  constructor(
    message: string,
    readonly reason: 'refused' | 'network' | 'timeout' | 'too-large' | 'redirects',
  ) {
    super(message);
    this.name = 'OutgoingError';
  }
}

export type OutgoingInit = OutgoingOptions & {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole call, redirects included; 10 s by default. */
  timeoutMs?: number;
  /** Bytes of the answer read at most; 1 MB by default. */
  maxResponseBytes?: number;
};

export type OutgoingResponse = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The URL that answered, after redirects. */
  url: string;
};

const maxRedirects = 3;

/** A lookup for node:http that refuses private answers, so the address checked is the address connected to. */
function guardedLookup(options: OutgoingOptions): LookupFunction {
  const lookupAll = lookupOf(options);
  return (hostname, lookupOptions, callback) => {
    lookupAll(hostname).then(
      (answers) => {
        const refused = answers.find((a) => isRefused(a.address, options));
        if (refused || isLocalName(hostname)) {
          callback(new OutgoingError(outgoingMessages.private, 'refused'), '', 4);
          return;
        }
        const wanted =
          lookupOptions.family === 4 || lookupOptions.family === 6
            ? answers.filter((a) => a.family === lookupOptions.family)
            : answers;
        if (wanted.length === 0) {
          callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
          return;
        }
        if (lookupOptions.all) callback(null, wanted as never, 4);
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
}

function requestOnce(
  url: URL,
  init: OutgoingInit,
  method: string,
  body: string | Buffer | undefined,
  signal: AbortSignal,
): Promise<OutgoingResponse> {
  const host = hostOf(url);
  if (net.isIP(host) ? isRefused(host, init) : isLocalName(host))
    return Promise.reject(new OutgoingError(outgoingMessages.private, 'refused'));
  const client = url.protocol === 'https:' ? https : http;
  const maxBytes = init.maxResponseBytes ?? 1_000_000;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      { method, headers: init.headers, lookup: guardedLookup(init), signal, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            response.destroy();
            reject(new OutgoingError(outgoingMessages.tooLarge, 'too-large'));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            url: url.href,
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', (error: Error) => {
      if (error instanceof OutgoingError) reject(error);
      else if (signal.aborted) reject(new OutgoingError(outgoingMessages.timeout, 'timeout'));
      else
        reject(
          new OutgoingError(
            `The webhook could not be reached (${(error as NodeJS.ErrnoException).code ?? error.message}).`,
            'network',
          ),
        );
    });
    if (body !== undefined) request.write(body);
    request.end();
  });
}

/**
 * Calls a user-given URL: refuses a private destination (the literal address, or the DNS answer the socket uses),
 * follows at most 3 redirects itself (each judged the same way; 303, and 301/302 after a POST, become a GET without
 * body), and gives up after `timeoutMs`. Throws OutgoingError with a message fit for the user.
 */
export async function fetchOutgoing(raw: string, init: OutgoingInit = {}): Promise<OutgoingResponse> {
  const first = parseOutgoing(raw);
  if ('problem' in first) throw new OutgoingError(first.problem, 'refused');
  const signal = AbortSignal.timeout(init.timeoutMs ?? 10_000);
  let url = first.url;
  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body;
  for (let redirects = 0; ; redirects += 1) {
    const response = await requestOnce(url, init, method, body, signal);
    const location = response.headers.location;
    if (
      response.status < 300 ||
      response.status >= 400 ||
      response.status === 304 ||
      typeof location !== 'string'
    )
      return response;
    if (redirects >= maxRedirects) throw new OutgoingError(outgoingMessages.tooManyRedirects, 'redirects');
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new OutgoingError(outgoingMessages.badRedirect, 'refused');
    }
    const parsed = parseOutgoing(next.href);
    if ('problem' in parsed)
      throw new OutgoingError(
        parsed.problem === outgoingMessages.protocol ? outgoingMessages.badRedirect : parsed.problem,
        'refused',
      );
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
    }
    url = parsed.url;
  }
}
