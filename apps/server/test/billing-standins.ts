import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';

/**
 * Local HTTP stand-ins for Chargebee's and PayPal's APIs on 127.0.0.1, answering the calls Herald makes in the
 * providers' documented shapes (form-encoded Chargebee v2 with basic auth; PayPal REST with OAuth bearer tokens).
 * They record each request so tests can check what Herald sent, and can be told to fail.
 */

export const fixturesDir = path.join(import.meta.dirname, 'fixtures', 'billing');

export interface Recorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface StandIn {
  url: string;
  requests: Recorded[];
  /** The next `count` calls answer this status (a provider outage). */
  failNext(status: number, count?: number): void;
  close(): Promise<void>;
}

type Handler = (request: Recorded, url: URL) => { status: number; body: unknown };

async function serve(handler: Handler): Promise<Omit<StandIn, 'url'> & { port: number }> {
  const requests: Recorded[] = [];
  let failures: { status: number; count: number } | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded = { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
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

const basicOf = (header: string | undefined) => Buffer.from((header ?? '').replace(/^Basic /i, ''), 'base64').toString('utf8');

export interface ChargebeeStandIn extends StandIn {
  apiKey: string;
  /** Item price ids Chargebee knows; a checkout for another answers 404 resource_not_found. */
  itemPrices: Set<string>;
  /** Invoices per customer id, as Chargebee lists them. */
  invoices: Map<string, Record<string, unknown>[]>;
  form(request: Recorded): Record<string, string>;
}

export async function startChargebeeStandIn(site = 'herald-test'): Promise<ChargebeeStandIn> {
  const apiKey = `test_${crypto.randomBytes(12).toString('hex')}`;
  const itemPrices = new Set<string>();
  const invoices = new Map<string, Record<string, unknown>[]>();
  const form = (request: Recorded) => Object.fromEntries(new URLSearchParams(request.body));
  const base = await serve((request, url) => {
    if (basicOf(request.headers.authorization) !== `${apiKey}:`) {
      return { status: 401, body: { message: 'Sorry, authentication failed. Invalid api key', type: 'invalid_request', api_error_code: 'api_authentication_failed', error_code: 'api_authentication_invalid_key', http_status_code: 401 } };
    }
    if (request.method === 'POST' && (url.pathname === '/api/v2/hosted_pages/checkout_new_for_items' || url.pathname === '/api/v2/hosted_pages/checkout_existing_for_items')) {
      const fields = form(request);
      const itemPrice = fields['subscription_items[item_price_id][0]'] ?? '';
      if (!itemPrices.has(itemPrice)) {
        return { status: 404, body: { message: `Sorry, we couldn't find that resource: item_price ${itemPrice}`, type: 'invalid_request', api_error_code: 'resource_not_found', param: 'subscription_items[item_price_id][0]', http_status_code: 404 } };
      }
      const id = crypto.randomBytes(16).toString('hex');
      const now = Math.floor(Date.now() / 1000);
      return {
        status: 200,
        body: { hosted_page: { id, type: url.pathname.endsWith('existing_for_items') ? 'checkout_existing' : 'checkout_new', url: `https://${site}.chargebee.com/pages/v3/${id}/`, state: 'created', embed: false, created_at: now, expires_at: now + 3600, updated_at: now, resource_version: now * 1000, object: 'hosted_page' } },
      };
    }
    if (request.method === 'GET' && url.pathname === '/api/v2/invoices') {
      const list = invoices.get(url.searchParams.get('customer_id[is]') ?? '') ?? [];
      return { status: 200, body: { list: list.map((invoice) => ({ invoice })) } };
    }
    return { status: 404, body: { message: 'Sorry, we couldn\'t find that resource', api_error_code: 'resource_not_found', http_status_code: 404 } };
  });
  return { ...base, url: `http://127.0.0.1:${base.port}/api/v2`, apiKey, itemPrices, invoices, form };
}

export interface PaypalStandIn extends StandIn {
  clientId: string;
  clientSecret: string;
  webhookId: string;
  /** PayPal billing plans: id, name (Herald's naming rule), status. */
  plans: { id: string; name: string; status: string }[];
  /** Transactions per subscription id, as PayPal lists them. */
  transactions: Map<string, Record<string, unknown>[]>;
  /** The id the next created subscription gets (else a random I-… id). */
  nextSubscriptionIds: string[];
}

/** The test signing key pair standing for PayPal's certificate (fixtures/billing/paypal-test-key.pem). */
export const paypalTestKey = {
  privateKey: () => fs.readFileSync(path.join(fixturesDir, 'paypal-test-key.pem'), 'utf8'),
  publicKey: () => crypto.createPublicKey(fs.readFileSync(path.join(fixturesDir, 'paypal-test-key.pem'), 'utf8')),
};

/** PayPal's signed string: transmission id | time | webhook id | CRC32 of the body (decimal). */
export const paypalSignedText = (transmissionId: string, time: string, webhookId: string, body: string) =>
  `${transmissionId}|${time}|${webhookId}|${zlib.crc32(Buffer.from(body, 'utf8'))}`;

export async function startPaypalStandIn(options: { webhookId?: string } = {}): Promise<PaypalStandIn> {
  const clientId = `client-${crypto.randomBytes(6).toString('hex')}`;
  const clientSecret = crypto.randomBytes(16).toString('hex');
  const webhookId = options.webhookId ?? `WH-${crypto.randomBytes(8).toString('hex').toUpperCase()}`;
  const tokens = new Set<string>();
  const plans: PaypalStandIn['plans'] = [];
  const transactions = new Map<string, Record<string, unknown>[]>();
  const nextSubscriptionIds: string[] = [];
  const created = new Map<string, unknown>();
  const publicKey = paypalTestKey.publicKey();
  const base = await serve((request, url) => {
    const json = () => JSON.parse(request.body || '{}') as Record<string, unknown>;
    if (request.method === 'POST' && url.pathname === '/v1/oauth2/token') {
      if (basicOf(request.headers.authorization) !== `${clientId}:${clientSecret}` || request.body !== 'grant_type=client_credentials') {
        return { status: 401, body: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
      }
      const token = `A21AA${crypto.randomBytes(20).toString('hex')}`;
      tokens.add(token);
      return { status: 200, body: { scope: 'https://uri.paypal.com/services/subscriptions', access_token: token, token_type: 'Bearer', app_id: 'APP-80W284485P519543T', expires_in: 32400, nonce: crypto.randomUUID() } };
    }
    if (!tokens.has((request.headers.authorization ?? '').replace(/^Bearer /, ''))) {
      return { status: 401, body: { error: 'invalid_token', error_description: 'Token signature verification failed' } };
    }
    if (request.method === 'GET' && url.pathname === '/v1/billing/plans') {
      const size = Number(url.searchParams.get('page_size') ?? 10);
      const page = Number(url.searchParams.get('page') ?? 1);
      return { status: 200, body: { plans: plans.slice((page - 1) * size, page * size).map((p) => ({ ...p, product_id: 'PROD-HERALD', usage_type: 'LICENSED' })), total_items: plans.length, total_pages: Math.max(1, Math.ceil(plans.length / size)) } };
    }
    const planMatch = /^\/v1\/billing\/plans\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'GET' && planMatch) {
      const plan = plans.find((p) => p.id === planMatch[1]);
      return plan ? { status: 200, body: { ...plan, product_id: 'PROD-HERALD' } } : { status: 404, body: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.' } };
    }
    if (request.method === 'POST' && url.pathname === '/v1/billing/subscriptions') {
      const requestId = String(request.headers['paypal-request-id'] ?? '');
      if (requestId && created.has(requestId)) return { status: 201, body: created.get(requestId) };
      const body = json();
      if (!plans.some((p) => p.id === body.plan_id && p.status === 'ACTIVE')) {
        return { status: 422, body: { name: 'UNPROCESSABLE_ENTITY', message: 'The requested action could not be performed.', details: [{ issue: 'PLAN_STATUS_INVALID' }] } };
      }
      const id = nextSubscriptionIds.shift() ?? `I-${crypto.randomBytes(6).toString('hex').toUpperCase()}`;
      const token = `BA-${crypto.randomBytes(8).toString('hex').toUpperCase()}`;
      const answer = {
        id,
        status: 'APPROVAL_PENDING',
        plan_id: body.plan_id,
        custom_id: body.custom_id,
        create_time: new Date().toISOString(),
        links: [
          { href: `https://www.sandbox.paypal.com/webapps/billing/subscriptions?ba_token=${token}`, rel: 'approve', method: 'GET' },
          { href: `https://api-m.sandbox.paypal.com/v1/billing/subscriptions/${id}`, rel: 'edit', method: 'PATCH' },
          { href: `https://api-m.sandbox.paypal.com/v1/billing/subscriptions/${id}`, rel: 'self', method: 'GET' },
        ],
      };
      if (requestId) created.set(requestId, answer);
      return { status: 201, body: answer };
    }
    const reviseMatch = /^\/v1\/billing\/subscriptions\/([^/]+)\/revise$/.exec(url.pathname);
    if (request.method === 'POST' && reviseMatch) {
      const body = json();
      if (!plans.some((p) => p.id === body.plan_id && p.status === 'ACTIVE')) return { status: 422, body: { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'PLAN_STATUS_INVALID' }] } };
      const token = `BA-${crypto.randomBytes(8).toString('hex').toUpperCase()}`;
      return {
        status: 200,
        body: { plan_id: body.plan_id, effective_time: new Date().toISOString(), links: [{ href: `https://www.sandbox.paypal.com/webapps/billing/subscriptions/update?ba_token=${token}`, rel: 'approve', method: 'GET' }] },
      };
    }
    if (request.method === 'POST' && url.pathname === '/v1/notifications/verify-webhook-signature') {
      const body = json();
      // The event as Herald forwarded it, byte for byte: everything after "webhook_event": up to the closing brace.
      const at = request.body.indexOf('"webhook_event":');
      const event = at < 0 ? '' : request.body.slice(at + '"webhook_event":'.length, request.body.lastIndexOf('}'));
      const text = paypalSignedText(String(body.transmission_id), String(body.transmission_time), String(body.webhook_id), event);
      const valid =
        body.webhook_id === webhookId &&
        body.auth_algo === 'SHA256withRSA' &&
        typeof body.transmission_sig === 'string' &&
        crypto.verify('sha256', Buffer.from(text), publicKey, Buffer.from(body.transmission_sig, 'base64'));
      return { status: 200, body: { verification_status: valid ? 'SUCCESS' : 'FAILURE' } };
    }
    const transactionsMatch = /^\/v1\/billing\/subscriptions\/([^/]+)\/transactions$/.exec(url.pathname);
    if (request.method === 'GET' && transactionsMatch) {
      const list = transactions.get(decodeURIComponent(transactionsMatch[1]!)) ?? [];
      return { status: 200, body: { transactions: list, total_items: list.length, total_pages: 1 } };
    }
    return { status: 404, body: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.' } };
  });
  return { ...base, url: `http://127.0.0.1:${base.port}`, clientId, clientSecret, webhookId, plans, transactions, nextSubscriptionIds };
}

/** Sign a PayPal webhook body as PayPal does (SHA256withRSA over the signed text) with the test key. */
export function signPaypalWebhook(body: string, webhookId: string, transmissionId = crypto.randomUUID(), time = new Date().toISOString()): Record<string, string> {
  const signature = crypto.sign('sha256', Buffer.from(paypalSignedText(transmissionId, time, webhookId, body)), paypalTestKey.privateKey()).toString('base64');
  return {
    'paypal-auth-algo': 'SHA256withRSA',
    'paypal-cert-url': 'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-1d93a270',
    'paypal-transmission-id': transmissionId,
    'paypal-transmission-sig': signature,
    'paypal-transmission-time': time,
  };
}

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
export const chargebeeAuthHeader = (auth = chargebeeWebhookAuth) => ({ authorization: `Basic ${Buffer.from(auth).toString('base64')}` });

/** Every Herald plan of the growth and premium tables as a Chargebee item price, plus the PayPal tier as PayPal plans. */
export function stockProviders(chargebee: ChargebeeStandIn, paypal: PaypalStandIn, plans: readonly { name: string; peopleUpperLimit: number }[]): void {
  for (const plan of plans) {
    if (!plan.name.startsWith('paypal-')) chargebee.itemPrices.add(`${plan.name}-${plan.peopleUpperLimit}`);
    else paypal.plans.push({ id: `P-${crypto.createHash('sha256').update(`${plan.name}-${plan.peopleUpperLimit}`).digest('hex').slice(0, 24).toUpperCase()}`, name: `${plan.name}-${plan.peopleUpperLimit}`, status: 'ACTIVE' });
  }
}
