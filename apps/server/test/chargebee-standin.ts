import crypto from 'node:crypto';
import { basicOf, chargebeeWebhookAuth, serve, type Recorded, type StandIn } from './billing-standins.ts';

/**
 * A local HTTP stand-in for Chargebee's API on 127.0.0.1, answering the calls Herald makes in Chargebee's documented
 * shapes (form-encoded v2 with basic auth); and the basic auth Chargebee's webhooks carry.
 */

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
      return {
        status: 401,
        body: {
          message: 'Sorry, authentication failed. Invalid api key',
          type: 'invalid_request',
          api_error_code: 'api_authentication_failed',
          error_code: 'api_authentication_invalid_key',
          http_status_code: 401,
        },
      };
    }
    if (
      request.method === 'POST' &&
      (url.pathname === '/api/v2/hosted_pages/checkout_new_for_items' ||
        url.pathname === '/api/v2/hosted_pages/checkout_existing_for_items')
    ) {
      const fields = form(request);
      const itemPrice = fields['subscription_items[item_price_id][0]'] ?? '';
      if (!itemPrices.has(itemPrice)) {
        return {
          status: 404,
          body: {
            message: `Sorry, we couldn't find that resource: item_price ${itemPrice}`,
            type: 'invalid_request',
            api_error_code: 'resource_not_found',
            param: 'subscription_items[item_price_id][0]',
            http_status_code: 404,
          },
        };
      }
      const id = crypto.randomBytes(16).toString('hex');
      const now = Math.floor(Date.now() / 1000);
      return {
        status: 200,
        body: {
          hosted_page: {
            id,
            type: url.pathname.endsWith('existing_for_items') ? 'checkout_existing' : 'checkout_new',
            url: `https://${site}.chargebee.com/pages/v3/${id}/`,
            state: 'created',
            embed: false,
            created_at: now,
            expires_at: now + 3600,
            updated_at: now,
            resource_version: now * 1000,
            object: 'hosted_page',
          },
        },
      };
    }
    if (request.method === 'GET' && url.pathname === '/api/v2/invoices') {
      const list = invoices.get(url.searchParams.get('customer_id[is]') ?? '') ?? [];
      return { status: 200, body: { list: list.map((invoice) => ({ invoice })) } };
    }
    return {
      status: 404,
      body: {
        message: "Sorry, we couldn't find that resource",
        api_error_code: 'resource_not_found',
        http_status_code: 404,
      },
    };
  });
  return { ...base, url: `http://127.0.0.1:${base.port}/api/v2`, apiKey, itemPrices, invoices, form };
}

export const chargebeeAuthHeader = (auth = chargebeeWebhookAuth) => ({
  authorization: `Basic ${Buffer.from(auth).toString('base64')}`,
});
