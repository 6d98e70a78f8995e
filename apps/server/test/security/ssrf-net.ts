import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { parseIpv6 } from '../../src/lib/outgoing-url.ts';
import { dnsCodes as P, serveDns } from '../dns-server.ts';

/**
 * The network an SSRF attempt would reach, all real sockets on this machine:
 * - targets: TCP listeners on every local address a payload can point at (loopback, ::1, this machine's own private
 *   addresses) on one shared port, counting each connection they accept. Any count above 0 is a request that got out.
 * - a "public" receiver on 127.0.0.2 (the one address the server under test trusts, OUTGOING_TRUSTED_ADDRESSES) on the
 *   same port: what a legitimate webhook receiver is, and a redirector (`?to=<url>&status=<code>`) to private targets.
 * - a DNS server whose names answer private addresses, in turn where a name has a sequence (DNS rebinding).
 */

export interface Targets {
  port: number;
  /** The addresses listened on (IPv6 without brackets). */
  addresses: string[];
  /** Connections accepted per address:port. */
  connections: Map<string, number>;
  total(): number;
  close(): Promise<void>;
}

const listen = (server: net.Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });

const closeAll = (servers: net.Server[]) =>
  Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));

/** This machine's own non-loopback addresses that a listener can bind without a zone (link-local ones need one). */
export function ownAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter(
      (i): i is os.NetworkInterfaceInfo =>
        Boolean(i) && !i!.internal && !i!.address.toLowerCase().startsWith('fe80'),
    )
    .map((i) => i.address);
}

function countingServer(key: () => string, connections: Map<string, number>): net.Server {
  return net.createServer((socket) => {
    connections.set(key(), (connections.get(key()) ?? 0) + 1);
    socket.on('error', () => {});
    socket.once('data', () =>
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok'),
    );
  });
}

/**
 * Counting listeners on one port on 127.0.0.1, ::1 and this machine's own addresses (plus port 80 on loopback when it
 * is free, for payloads without a port), leaving 127.0.0.2 on that port for the trusted receiver.
 */
export async function startTargets(): Promise<Targets> {
  const addresses = ['127.0.0.1', '::1', ...ownAddresses()];
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const connections = new Map<string, number>();
    const servers: net.Server[] = [];
    let port = 0;
    try {
      for (const address of addresses) {
        const server = countingServer(() => `${address}:${port}`, connections);
        servers.push(server);
        await listen(server, port, address);
        port ||= (server.address() as net.AddressInfo).port;
      }
      for (const address of ['127.0.0.1', '::1']) {
        const server = countingServer(() => `${address}:80`, connections);
        try {
          await listen(server, 80, address);
          servers.push(server);
        } catch {
          // Port 80 is taken or not ours to bind: payloads without a port are then judged by their answers only.
        }
      }
      return {
        port,
        addresses,
        connections,
        total: () => [...connections.values()].reduce((a, b) => a + b, 0),
        close: () => closeAll(servers).then(() => undefined),
      };
    } catch {
      await closeAll(servers);
    }
  }
  throw new Error('no free port on every local address');
}

/** The trusted receiver on 127.0.0.2:port: answers 200 (Slack-like "ok"), or redirects when asked to. */
export async function startTrustedReceiver(port: number) {
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://127.0.0.2');
    calls.push(url.pathname + url.search);
    const to = url.searchParams.get('to');
    if (to) res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to }).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.2', () => resolve());
  });
  return {
    base: `http://127.0.0.2:${port}`,
    calls,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** What a name answers: A and AAAA records, or a sequence of A/AAAA sets answered one per query (the last repeats). */
export interface SsrfDnsEntry {
  A?: string[];
  AAAA?: string[];
  sequence?: { A?: string[]; AAAA?: string[] }[];
}

/** IPv6 text in full eight-group form, which the packet codec writes correctly (it does not read embedded IPv4). */
const fullIpv6 = (address: string) => (parseIpv6(address) ?? []).map((g) => g.toString(16)).join(':');

/** A real DNS server on a loopback UDP port answering from `zone` (lower-case names, no trailing dot); others NXDOMAIN. */
export async function startSsrfDns(zone: Record<string, SsrfDnsEntry>) {
  const asked = new Map<string, number>();
  const dns = await serveDns((question, name, response) => {
    const entry = zone[name];
    if (!entry) {
      response.header.rcode = 3;
      return;
    }
    let records: { A?: string[]; AAAA?: string[] } = entry;
    if (entry.sequence && (question.type === P.TYPE.A || question.type === P.TYPE.AAAA)) {
      // One step of the sequence per A question (the AAAA question of the same lookup gets the same step).
      const n = asked.get(name) ?? 0;
      if (question.type === P.TYPE.A) asked.set(name, n + 1);
      const index = question.type === P.TYPE.A ? n : Math.max(0, n - 1);
      records = entry.sequence[Math.min(index, entry.sequence.length - 1)] ?? {};
    }
    if (question.type === P.TYPE.A) {
      for (const address of records.A ?? [])
        response.answers.push({ name: question.name, type: P.TYPE.A, class: P.CLASS.IN, ttl: 0, address });
    } else if (question.type === P.TYPE.AAAA) {
      for (const address of records.AAAA ?? [])
        response.answers.push({
          name: question.name,
          type: P.TYPE.AAAA,
          class: P.CLASS.IN,
          ttl: 0,
          address: fullIpv6(address),
        });
    }
  });
  return {
    ...dns,
    zone,
    /** Start a name's sequence again. */
    reset: (name: string) => asked.delete(name),
  };
}
