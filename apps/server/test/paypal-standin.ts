import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { basicOf, fixturesDir, serve, type StandIn } from './billing-standins.ts';

/**
 * A local HTTP stand-in for PayPal's API on 127.0.0.1, answering the calls Herald makes in PayPal's documented shapes
 * (REST with OAuth bearer tokens); and PayPal's webhook signatures, made with a test key.
 */

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
  publicKey: () =>
    crypto.createPublicKey(fs.readFileSync(path.join(fixturesDir, 'paypal-test-key.pem'), 'utf8')),
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
      if (
        basicOf(request.headers.authorization) !== `${clientId}:${clientSecret}` ||
        request.body !== 'grant_type=client_credentials'
      ) {
        return {
          status: 401,
          body: { error: 'invalid_client', error_description: 'Client Authentication failed' },
        };
      }
      const token = `A21AA${crypto.randomBytes(20).toString('hex')}`;
      tokens.add(token);
      return {
        status: 200,
        body: {
          scope: 'https://uri.paypal.com/services/subscriptions',
          access_token: token,
          token_type: 'Bearer',
          app_id: 'APP-80W284485P519543T',
          expires_in: 32400,
          nonce: crypto.randomUUID(),
        },
      };
    }
    if (!tokens.has((request.headers.authorization ?? '').replace(/^Bearer /, ''))) {
      return {
        status: 401,
        body: { error: 'invalid_token', error_description: 'Token signature verification failed' },
      };
    }
    if (request.method === 'GET' && url.pathname === '/v1/billing/plans') {
      const size = Number(url.searchParams.get('page_size') ?? 10);
      const page = Number(url.searchParams.get('page') ?? 1);
      return {
        status: 200,
        body: {
          plans: plans
            .slice((page - 1) * size, page * size)
            .map((p) => ({ ...p, product_id: 'PROD-HERALD', usage_type: 'LICENSED' })),
          total_items: plans.length,
          total_pages: Math.max(1, Math.ceil(plans.length / size)),
        },
      };
    }
    const planMatch = /^\/v1\/billing\/plans\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'GET' && planMatch) {
      const plan = plans.find((p) => p.id === planMatch[1]);
      return plan
        ? { status: 200, body: { ...plan, product_id: 'PROD-HERALD' } }
        : {
            status: 404,
            body: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.' },
          };
    }
    if (request.method === 'POST' && url.pathname === '/v1/billing/subscriptions') {
      const requestId = String(request.headers['paypal-request-id'] ?? '');
      if (requestId && created.has(requestId)) return { status: 201, body: created.get(requestId) };
      const body = json();
      if (!plans.some((p) => p.id === body.plan_id && p.status === 'ACTIVE')) {
        return {
          status: 422,
          body: {
            name: 'UNPROCESSABLE_ENTITY',
            message: 'The requested action could not be performed.',
            details: [{ issue: 'PLAN_STATUS_INVALID' }],
          },
        };
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
          {
            href: `https://www.sandbox.paypal.com/webapps/billing/subscriptions?ba_token=${token}`,
            rel: 'approve',
            method: 'GET',
          },
          {
            href: `https://api-m.sandbox.paypal.com/v1/billing/subscriptions/${id}`,
            rel: 'edit',
            method: 'PATCH',
          },
          {
            href: `https://api-m.sandbox.paypal.com/v1/billing/subscriptions/${id}`,
            rel: 'self',
            method: 'GET',
          },
        ],
      };
      if (requestId) created.set(requestId, answer);
      return { status: 201, body: answer };
    }
    const reviseMatch = /^\/v1\/billing\/subscriptions\/([^/]+)\/revise$/.exec(url.pathname);
    if (request.method === 'POST' && reviseMatch) {
      const body = json();
      if (!plans.some((p) => p.id === body.plan_id && p.status === 'ACTIVE'))
        return {
          status: 422,
          body: { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'PLAN_STATUS_INVALID' }] },
        };
      const token = `BA-${crypto.randomBytes(8).toString('hex').toUpperCase()}`;
      return {
        status: 200,
        body: {
          plan_id: body.plan_id,
          effective_time: new Date().toISOString(),
          links: [
            {
              href: `https://www.sandbox.paypal.com/webapps/billing/subscriptions/update?ba_token=${token}`,
              rel: 'approve',
              method: 'GET',
            },
          ],
        },
      };
    }
    if (request.method === 'POST' && url.pathname === '/v1/notifications/verify-webhook-signature') {
      const body = json();
      // The event as Herald forwarded it, byte for byte: everything after "webhook_event": up to the closing brace.
      const at = request.body.indexOf('"webhook_event":');
      const event =
        at < 0 ? '' : request.body.slice(at + '"webhook_event":'.length, request.body.lastIndexOf('}'));
      const text = paypalSignedText(
        String(body.transmission_id),
        String(body.transmission_time),
        String(body.webhook_id),
        event,
      );
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
    return {
      status: 404,
      body: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.' },
    };
  });
  return {
    ...base,
    url: `http://127.0.0.1:${base.port}`,
    clientId,
    clientSecret,
    webhookId,
    plans,
    transactions,
    nextSubscriptionIds,
  };
}

/** Sign a PayPal webhook body as PayPal does (SHA256withRSA over the signed text) with the test key. */
export function signPaypalWebhook(
  body: string,
  webhookId: string,
  transmissionId = crypto.randomUUID(),
  time = new Date().toISOString(),
): Record<string, string> {
  const signature = crypto
    .sign(
      'sha256',
      Buffer.from(paypalSignedText(transmissionId, time, webhookId, body)),
      paypalTestKey.privateKey(),
    )
    .toString('base64');
  return {
    'paypal-auth-algo': 'SHA256withRSA',
    'paypal-cert-url':
      'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-1d93a270',
    'paypal-transmission-id': transmissionId,
    'paypal-transmission-sig': signature,
    'paypal-transmission-time': time,
  };
}
