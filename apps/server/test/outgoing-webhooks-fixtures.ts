import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import type { registerUser, TestContext } from './helpers.ts';
import { useSmtpContext, type SmtpSink } from './smtp-context.ts';

/** A receiver on loopback (trusted by this server): what it got; a path decides what it answers. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: {
    deliveryId: string;
    test: boolean;
    events: { id: string; type: string; createdAt: string; data: Record<string, any> }[];
  };
}

/**
 * What the outgoing-webhooks tests share: a server with a worker, an SMTP sink and a receiver for the endpoints.
 * A test file calls useWebhooksContext() once: its own beforeAll builds them (the receiver's calls start empty) and its
 * afterAll closes them; the bindings below, read live by the importers, name the current file's.
 */
export let ctx: TestContext;
export let smtp: SmtpSink;
/** The receiver's origin: an endpoint's URL is `${base}${path}`. */
export let base: string;
export let received: Received[] = [];
let failing = 0;

/** The next `count` calls to /flaky are answered 503 (/broken always is). */
export function failNext(count: number): void {
  failing = count;
}

export function useWebhooksContext(): void {
  let receiver: http.Server;
  beforeAll(async () => {
    received = [];
    failing = 0;
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body || '{}') });
        if (req.url === '/broken' || (req.url === '/flaky' && failing > 0)) {
          failing = Math.max(0, failing - 1);
          res.writeHead(503).end('down');
        } else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  // Registered first, so run last: the receiver closes after the server.
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
  });
  useSmtpContext({ OUTGOING_TRUSTED_ADDRESSES: '127.0.0.1' }, (server, sink) => {
    ctx = server;
    smtp = sink;
  });
}

export const eventsAt = (path: string) =>
  received.filter((r) => r.path === path).flatMap((r) => r.json.events ?? []);

export async function endpoint(
  owner: Awaited<ReturnType<typeof registerUser>>,
  path: string,
  events: string[],
) {
  const res = await owner.client.post('/v1/webhook-endpoints', {
    url: `${base}${path}`,
    events,
    description: 'CRM sync',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { endpoint: { id: number }; secret: string };
}
