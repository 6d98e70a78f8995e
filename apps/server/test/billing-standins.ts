import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ChargebeeStandIn } from './chargebee-standin.ts';
import type { PaypalStandIn } from './paypal-standin.ts';

/**
 * What the local HTTP stand-ins for Chargebee's and PayPal's APIs (chargebee-standin.ts, paypal-standin.ts) are built
 * on: a server on 127.0.0.1 that records each request so tests can check what Herald sent, and can be told to fail.
 * Also the providers' webhook fixtures, and the env and plans that point Herald at both stand-ins.
 */

export const fixturesDir = path.join(import.meta.dirname, 'fixtures', 'billing');

export interface Recorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface StandIn {
  url: string;
  requests: Recorded[];
  /** The next `count` calls answer this status (a provider outage). */
  failNext(status: number, count?: number): void;
  close(): Promise<void>;
}

type Handler = (request: Recorded, url: URL) => { status: number; body: unknown };

export async function serve(handler: Handler): Promise<Omit<StandIn, 'url'> & { port: number }> {
  const requests: Recorded[] = [];
  let failures: { status: number; count: number } | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded = {
        method: req.method ?? 'GET',
        path: url.pathname,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      let answer: { status: number; body: unknown };
      if (failures && failures.count > 0) {
        failures.count--;
        answer = { status: failures.status, body: { message: 'stand-in outage' } };
      } else {
        answer = handler(recorded, url);
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    failNext: (status, count = 1) => {
      failures = { status, count };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const basicOf = (header: string | undefined) =>
  Buffer.from((header ?? '').replace(/^Basic /i, ''), 'base64').toString('utf8');

/** A fixture with its {{name}} slots filled (ids differ per test so events are not replays of each other). */
export function fixture(name: string, values: Record<string, string | number>): string {
  const text = fs.readFileSync(path.join(fixturesDir, name), 'utf8');
  return text.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
    if (!(key in values)) throw new Error(`fixture ${name} needs ${key}`);
    return String(values[key]);
  });
}

/** The server env that points Herald at the two stand-ins (BILLING_MODE=plans). */
export function providerEnv(chargebee: ChargebeeStandIn, paypal: PaypalStandIn): Record<string, string> {
  return {
    BILLING_MODE: 'plans',
    CHARGEBEE_SITE: 'herald-test',
    CHARGEBEE_API_KEY: chargebee.apiKey,
    CHARGEBEE_WEBHOOK_AUTH: chargebeeWebhookAuth,
    CHARGEBEE_API_URL: chargebee.url,
    PAYPAL_CLIENT_ID: paypal.clientId,
    PAYPAL_CLIENT_SECRET: paypal.clientSecret,
    PAYPAL_WEBHOOK_ID: paypal.webhookId,
    PAYPAL_API_URL: paypal.url,
  };
}

/** The user:password Chargebee's webhook settings send as basic auth in the tests. */
export const chargebeeWebhookAuth = 'chargebee-hook:s3cret-hook-password';

/** Every Herald plan of the growth and premium tables as a Chargebee item price, plus the PayPal tier as PayPal plans. */
export function stockProviders(
  chargebee: ChargebeeStandIn,
  paypal: PaypalStandIn,
  plans: readonly { name: string; peopleUpperLimit: number }[],
): void {
  for (const plan of plans) {
    if (!plan.name.startsWith('paypal-')) chargebee.itemPrices.add(`${plan.name}-${plan.peopleUpperLimit}`);
    else
      paypal.plans.push({
        id: `P-${crypto.createHash('sha256').update(`${plan.name}-${plan.peopleUpperLimit}`).digest('hex').slice(0, 24).toUpperCase()}`,
        name: `${plan.name}-${plan.peopleUpperLimit}`,
        status: 'ACTIVE',
      });
  }
}
