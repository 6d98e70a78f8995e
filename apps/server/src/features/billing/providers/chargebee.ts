import crypto from 'node:crypto';
import type { ProviderInvoice } from '@herald/contracts';
import { z } from 'zod';
import {
  callProvider,
  headerOf,
  parseJsonBody,
  ProviderError,
  WebhookBodyError,
  type BillingProvider,
  type CheckoutRequest,
  type InvoiceOwner,
  type PlanChangeRequest,
  type ProviderEvent,
  type ProviderEventChange,
  type SubscriptionState,
} from './provider.ts';

export interface ChargebeeConfig {
  site: string;
  apiKey: string;
  webhookAuth: string | undefined;
  apiUrl: string;
}

/**
 * A Herald plan is sold in Chargebee as the item price `<plan name>-<people upper limit>` (growth-monthly-v1-5000),
 * one flat-priced unit per subscription, so the price list lives in Chargebee and Herald only names it.
 */
export function chargebeeItemPriceId(plan: { name: string; peopleUpperLimit: number }): string {
  return `${plan.name}-${plan.peopleUpperLimit}`;
}

/** The Herald plan an item price id names, or null when it does not follow the naming rule. */
export function planOfItemPriceId(itemPriceId: string): { name: string; peopleUpperLimit: number } | null {
  const match = /^(.+)-(\d{1,9})$/.exec(itemPriceId);
  return match ? { name: match[1]!, peopleUpperLimit: Number(match[2]) } : null;
}

const Subscription = z.looseObject({
  id: z.string().min(1),
  customer_id: z.string().optional(),
  status: z.string(),
  current_term_end: z.number().optional(),
  subscription_items: z
    .array(z.looseObject({ item_price_id: z.string(), item_type: z.string().optional() }))
    .optional(),
});
const Invoice = z.looseObject({
  id: z.string(),
  customer_id: z.string().optional(),
  subscription_id: z.string().optional(),
  status: z.string(),
  date: z.number().optional(),
  paid_at: z.number().optional(),
  total: z.number().optional(),
  amount_paid: z.number().optional(),
  currency_code: z.string(),
});
const Transaction = z.looseObject({
  id: z.string(),
  amount: z.number(),
  currency_code: z.string(),
  date: z.number().optional(),
  subscription_id: z.string().optional(),
});

/** A Chargebee webhook event (API v2): `{ id, event_type, occurred_at, content: { subscription, customer, invoice, transaction } }`. */
const ChargebeeEvent = z.looseObject({
  id: z.string().min(1).max(200),
  object: z.literal('event').optional(),
  event_type: z.string().min(1).max(100),
  occurred_at: z.number().optional(),
  // A part Herald does not read in the expected shape is left out, so the event is still kept (as ignored).
  content: z.looseObject({
    subscription: Subscription.optional().catch(undefined),
    customer: z.looseObject({ id: z.string() }).optional().catch(undefined),
    invoice: Invoice.optional().catch(undefined),
    transaction: Transaction.optional().catch(undefined),
  }),
});
type ChargebeeEvent = z.infer<typeof ChargebeeEvent>;

const subscriptionEvents = new Set([
  'subscription_created',
  'subscription_started',
  'subscription_activated',
  'subscription_changed',
  'subscription_renewed',
  'subscription_reactivated',
  'subscription_resumed',
  'subscription_cancelled',
]);

/** Chargebee's subscription statuses as Herald reads them; paused and future subscriptions change nothing yet. */
function stateOf(status: string): SubscriptionState {
  if (status === 'active' || status === 'in_trial' || status === 'non_renewing') return 'active';
  if (status === 'cancelled') return 'canceled';
  return 'pending';
}

const cents = (amount: number) => Math.round(amount) / 100;
const fromUnix = (seconds: number) => new Date(seconds * 1000);

function changeOf(event: ChargebeeEvent): ProviderEventChange {
  const { subscription, customer, invoice, transaction } = event.content;
  if (subscriptionEvents.has(event.event_type) && subscription) {
    const item =
      subscription.subscription_items?.find((i) => i.item_type === 'plan') ??
      subscription.subscription_items?.[0];
    return {
      kind: 'subscription',
      subscriptionId: subscription.id,
      customerId: subscription.customer_id ?? customer?.id ?? null,
      state: event.event_type === 'subscription_cancelled' ? 'canceled' : stateOf(subscription.status),
      providerStatus: subscription.status,
      plan: item ? planOfItemPriceId(item.item_price_id) : null,
      providerPlanId: item?.item_price_id ?? null,
      currentTermEnd: subscription.current_term_end ? fromUnix(subscription.current_term_end) : null,
    };
  }
  if (event.event_type === 'payment_succeeded') {
    const subscriptionId = subscription?.id ?? transaction?.subscription_id ?? invoice?.subscription_id;
    const paid =
      transaction ??
      (invoice
        ? {
            id: invoice.id,
            amount: invoice.amount_paid ?? invoice.total ?? 0,
            currency_code: invoice.currency_code,
            date: invoice.paid_at ?? invoice.date,
          }
        : undefined);
    if (!subscriptionId || !paid) return { kind: 'ignored' };
    return {
      kind: 'payment',
      subscriptionId,
      customerId: customer?.id ?? subscription?.customer_id ?? null,
      paymentId: paid.id,
      amount: cents(paid.amount),
      currency: paid.currency_code,
      paidAt: paid.date ? fromUnix(paid.date) : new Date(),
    };
  }
  return { kind: 'ignored' };
}

const sameText = (a: string, b: string) => {
  const x = crypto.createHash('sha256').update(a).digest();
  const y = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(x, y);
};

/** Chargebee: hosted pages (checkout_new_for_items), webhooks with HTTP basic auth, invoices by customer. */
export function createChargebee(config: ChargebeeConfig): BillingProvider {
  const authorization = `Basic ${Buffer.from(`${config.apiKey}:`).toString('base64')}`;
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

  return {
    name: 'chargebee',

    async startCheckout(request: CheckoutRequest) {
      const customerId = `herald-${request.accountId}`;
      const fields: Record<string, string> = {
        'subscription[id]': request.reference,
        'subscription_items[item_price_id][0]': chargebeeItemPriceId(request.plan),
        'subscription_items[quantity][0]': '1',
        'customer[id]': customerId,
        'customer[email]': request.email,
        redirect_url: request.returnUrl,
        cancel_url: request.cancelUrl,
        pass_thru_content: JSON.stringify({
          accountId: request.accountId,
          plan: request.plan.name,
          peopleUpperLimit: request.plan.peopleUpperLimit,
        }),
      };
      if (request.accountName) fields['customer[company]'] = request.accountName.slice(0, 250);
      const answer = await callProvider<{ hosted_page?: { id?: string; url?: string } }>(
        'chargebee',
        `${config.apiUrl}/hosted_pages/checkout_new_for_items`,
        {
          method: 'POST',
          headers: {
            authorization,
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
          body: form(fields),
        },
      );
      const url = answer.hosted_page?.url;
      if (!url) throw new ProviderError('chargebee', 200, 'Chargebee answered without a hosted page url.');
      return {
        url,
        subscriptionId: request.reference,
        customerId,
        providerPlanId: fields['subscription_items[item_price_id][0]']!,
      };
    },

    async startPlanChange(request: PlanChangeRequest) {
      // checkout_existing_for_items: the same subscription gets the new item price in place of its items.
      const fields = {
        'subscription[id]': request.subscriptionId,
        'subscription_items[item_price_id][0]': chargebeeItemPriceId(request.plan),
        'subscription_items[quantity][0]': '1',
        replace_items_list: 'true',
        redirect_url: request.returnUrl,
        cancel_url: request.cancelUrl,
      };
      const answer = await callProvider<{ hosted_page?: { url?: string } }>(
        'chargebee',
        `${config.apiUrl}/hosted_pages/checkout_existing_for_items`,
        {
          method: 'POST',
          headers: {
            authorization,
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
          body: form(fields),
        },
      );
      if (!answer.hosted_page?.url)
        throw new ProviderError('chargebee', 200, 'Chargebee answered without a hosted page url.');
      return { url: answer.hosted_page.url };
    },

    planOfProviderPlan(itemPriceId) {
      return Promise.resolve(planOfItemPriceId(itemPriceId));
    },

    async verifyWebhook(call) {
      if (!config.webhookAuth) return false;
      const header = headerOf(call.headers, 'authorization') ?? '';
      const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
      if (!match) return false;
      return sameText(Buffer.from(match[1]!, 'base64').toString('utf8'), config.webhookAuth);
    },

    readEvent(rawBody): ProviderEvent {
      const parsed = ChargebeeEvent.safeParse(parseJsonBody(rawBody));
      if (!parsed.success)
        throw new WebhookBodyError('Not a Chargebee event: it needs id, event_type and content.');
      return { id: parsed.data.id, type: parsed.data.event_type, change: changeOf(parsed.data) };
    },

    async listInvoices(owner: InvoiceOwner) {
      const invoices: ProviderInvoice[] = [];
      for (const customerId of owner.customerIds) {
        const query = new URLSearchParams({
          'customer_id[is]': customerId,
          limit: '100',
          'sort_by[desc]': 'date',
        });
        const answer = await callProvider<{ list?: { invoice?: unknown }[] }>(
          'chargebee',
          `${config.apiUrl}/invoices?${query.toString()}`,
          {
            headers: { authorization, accept: 'application/json' },
          },
        );
        for (const entry of answer.list ?? []) {
          const invoice = Invoice.safeParse(entry.invoice);
          if (!invoice.success) continue;
          const { id, date, total, status, currency_code: currency } = invoice.data;
          invoices.push({
            id,
            provider: 'chargebee',
            date: fromUnix(date ?? 0).toISOString(),
            amount: cents(total ?? 0),
            currency,
            status,
            url: null,
          });
        }
      }
      return invoices.sort((a, b) => b.date.localeCompare(a.date));
    },
  };
}
