import type { ProviderInvoice } from '@herald/contracts';
import { z } from 'zod';
import { planOfItemPriceId } from './chargebee.ts';
import {
  callProvider,
  headerOf,
  parseJsonBody,
  ProviderError,
  WebhookBodyError,
  type BillingProvider,
  type CheckoutRequest,
  type HeraldPlanRef,
  type InvoiceOwner,
  type PlanChangeRequest,
  type ProviderEvent,
  type ProviderEventChange,
  type SubscriptionState,
} from './provider.ts';

export interface PaypalConfig {
  clientId: string;
  clientSecret: string;
  webhookId: string | undefined;
  apiUrl: string;
}

/**
 * PayPal plan ids (P-…) are PayPal's own. The naming rule: the PayPal billing plan that sells a Herald plan is named
 * `<plan name>-<people upper limit>` (paypal-monthly-v1-5000) and is ACTIVE; Herald finds it by listing the plans.
 */
export const paypalPlanName = (plan: HeraldPlanRef) => `${plan.name}-${plan.peopleUpperLimit}`;

const PaypalEvent = z.looseObject({
  id: z.string().min(1).max(200),
  event_type: z.string().min(1).max(100),
  resource_type: z.string().optional(),
  create_time: z.string().optional(),
  // Each event type has its own resource; the ones Herald acts on are read below, the others are kept as ignored.
  resource: z.looseObject({}),
});
type PaypalEvent = z.infer<typeof PaypalEvent>;

const SubscriptionResource = z.looseObject({
  id: z.string().min(1),
  status: z.string(),
  plan_id: z.string().optional(),
  custom_id: z.string().optional(),
  billing_info: z.looseObject({ next_billing_time: z.string().optional() }).optional(),
});
const SaleResource = z.looseObject({
  id: z.string().min(1),
  state: z.string().optional(),
  amount: z.looseObject({ total: z.string(), currency: z.string() }),
  billing_agreement_id: z.string().optional(),
  create_time: z.string().optional(),
});

/** PayPal's subscription statuses as Herald reads them; suspended (a failed payment) changes nothing by itself. */
function stateOf(status: string): SubscriptionState {
  if (status === 'ACTIVE') return 'active';
  if (status === 'CANCELLED' || status === 'EXPIRED') return 'canceled';
  return 'pending';
}

const dateOrNull = (text: string | undefined) =>
  text && !Number.isNaN(Date.parse(text)) ? new Date(text) : null;

function changeOf(event: PaypalEvent): ProviderEventChange {
  if (event.event_type.startsWith('BILLING.SUBSCRIPTION.')) {
    const parsed = SubscriptionResource.safeParse(event.resource);
    if (!parsed.success) return { kind: 'ignored' };
    const subscription = parsed.data;
    const ended =
      event.event_type === 'BILLING.SUBSCRIPTION.CANCELLED' ||
      event.event_type === 'BILLING.SUBSCRIPTION.EXPIRED';
    return {
      kind: 'subscription',
      subscriptionId: subscription.id,
      customerId: null,
      state: ended ? 'canceled' : stateOf(subscription.status),
      providerStatus: subscription.status,
      plan: null,
      providerPlanId: subscription.plan_id ?? null,
      currentTermEnd: dateOrNull(subscription.billing_info?.next_billing_time),
    };
  }
  if (event.event_type === 'PAYMENT.SALE.COMPLETED') {
    const parsed = SaleResource.safeParse(event.resource);
    if (!parsed.success || !parsed.data.billing_agreement_id) return { kind: 'ignored' };
    const sale = parsed.data;
    const amount = Number(sale.amount.total);
    if (!Number.isFinite(amount)) return { kind: 'ignored' };
    return {
      kind: 'payment',
      subscriptionId: sale.billing_agreement_id!,
      customerId: null,
      paymentId: sale.id,
      amount,
      currency: sale.amount.currency,
      paidAt: dateOrNull(sale.create_time) ?? dateOrNull(event.create_time) ?? new Date(),
    };
  }
  return { kind: 'ignored' };
}

const PlanList = z.looseObject({
  plans: z
    .array(z.looseObject({ id: z.string(), name: z.string().optional(), status: z.string().optional() }))
    .default([]),
  total_pages: z.number().optional(),
});
const Transactions = z.looseObject({
  transactions: z
    .array(
      z.looseObject({
        id: z.string(),
        status: z.string(),
        time: z.string(),
        amount_with_breakdown: z.looseObject({
          gross_amount: z.looseObject({ currency_code: z.string(), value: z.string() }),
        }),
      }),
    )
    .default([]),
});

function readAnswer<T extends z.ZodType>(schema: T, answer: unknown): z.infer<T> {
  const parsed = schema.safeParse(answer);
  if (!parsed.success)
    throw new ProviderError('paypal', 200, 'PayPal answered in a shape Herald does not know.');
  return parsed.data;
}

/** Plans are looked up again after this long, so a plan added in PayPal is found without a restart. */
const planCacheMs = 10 * 60_000;

/** PayPal: OAuth client credentials, subscriptions approved on PayPal, webhooks verified by PayPal's own API. */
export function createPaypal(config: PaypalConfig): BillingProvider {
  let token: { value: string; until: number } | undefined;
  let plans: { byName: Map<string, string>; byId: Map<string, string>; until: number } | undefined;

  async function accessToken(): Promise<string> {
    if (token && token.until > Date.now()) return token.value;
    const answer = await callProvider<{ access_token?: string; expires_in?: number }>(
      'paypal',
      `${config.apiUrl}/v1/oauth2/token`,
      {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: 'grant_type=client_credentials',
      },
    );
    if (!answer.access_token)
      throw new ProviderError('paypal', 200, 'PayPal answered without an access token.');
    // Renewed a minute before PayPal says it expires.
    token = {
      value: answer.access_token,
      until: Date.now() + Math.max(0, (answer.expires_in ?? 0) - 60) * 1000,
    };
    return token.value;
  }

  async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
    const headers = {
      authorization: `Bearer ${await accessToken()}`,
      accept: 'application/json',
      'content-type': 'application/json',
      ...(init.headers as Record<string, string> | undefined),
    };
    return callProvider<T>('paypal', `${config.apiUrl}${path}`, { ...init, headers });
  }

  async function planIndex() {
    if (plans && plans.until > Date.now()) return plans;
    const byName = new Map<string, string>();
    const byId = new Map<string, string>();
    for (let page = 1; page <= 20; page++) {
      const answer = readAnswer(
        PlanList,
        await api(`/v1/billing/plans?page_size=20&page=${page}&total_required=true`),
      );
      for (const plan of answer.plans) {
        if (!plan.name) continue;
        byId.set(plan.id, plan.name);
        if ((plan.status ?? 'ACTIVE') === 'ACTIVE') byName.set(plan.name, plan.id);
      }
      if (answer.plans.length === 0 || page >= (answer.total_pages ?? 1)) break;
    }
    plans = { byName, byId, until: Date.now() + planCacheMs };
    return plans;
  }

  return {
    name: 'paypal',

    async startCheckout(request: CheckoutRequest) {
      const planId = (await planIndex()).byName.get(paypalPlanName(request.plan));
      if (!planId)
        throw new ProviderError(
          'paypal',
          404,
          `No active PayPal plan is named ${paypalPlanName(request.plan)}.`,
        );
      const answer = await api<{ id?: string; links?: { href: string; rel: string }[] }>(
        '/v1/billing/subscriptions',
        {
          method: 'POST',
          // The same reference twice creates one subscription (PayPal's idempotency header).
          headers: { 'paypal-request-id': request.reference },
          body: JSON.stringify({
            plan_id: planId,
            custom_id: String(request.accountId),
            subscriber: { email_address: request.email },
            application_context: {
              brand_name: 'Herald',
              user_action: 'SUBSCRIBE_NOW',
              shipping_preference: 'NO_SHIPPING',
              return_url: request.returnUrl,
              cancel_url: request.cancelUrl,
            },
          }),
        },
      );
      const approve = answer.links?.find((link) => link.rel === 'approve')?.href;
      if (!answer.id || !approve)
        throw new ProviderError('paypal', 200, 'PayPal answered without a subscription id or approval link.');
      return { url: approve, subscriptionId: answer.id, customerId: null, providerPlanId: planId };
    },

    async startPlanChange(request: PlanChangeRequest) {
      const planId = (await planIndex()).byName.get(paypalPlanName(request.plan));
      if (!planId)
        throw new ProviderError(
          'paypal',
          404,
          `No active PayPal plan is named ${paypalPlanName(request.plan)}.`,
        );
      // Revising the subscription's plan: PayPal asks the subscriber to approve the new price, then sends UPDATED.
      const answer = await api<{ links?: { href: string; rel: string }[] }>(
        `/v1/billing/subscriptions/${encodeURIComponent(request.subscriptionId)}/revise`,
        {
          method: 'POST',
          body: JSON.stringify({
            plan_id: planId,
            application_context: {
              brand_name: 'Herald',
              shipping_preference: 'NO_SHIPPING',
              return_url: request.returnUrl,
              cancel_url: request.cancelUrl,
            },
          }),
        },
      );
      const approve = answer.links?.find((link) => link.rel === 'approve')?.href;
      if (!approve)
        throw new ProviderError('paypal', 200, 'PayPal answered the plan change without an approval link.');
      return { url: approve };
    },

    async planOfProviderPlan(planId) {
      let name = (await planIndex()).byId.get(planId);
      if (!name) {
        const plan = await api<{ name?: string }>(`/v1/billing/plans/${encodeURIComponent(planId)}`).catch(
          () => undefined,
        );
        name = plan?.name;
      }
      return name ? planOfItemPriceId(name) : null;
    },

    async verifyWebhook(call) {
      if (!config.webhookId) return false;
      const names = [
        'auth-algo',
        'cert-url',
        'transmission-id',
        'transmission-sig',
        'transmission-time',
      ] as const;
      const values = names.map((name) => headerOf(call.headers, `paypal-${name}`));
      if (values.some((value) => !value)) return false;
      parseJsonBody(call.rawBody);
      const [authAlgo, certUrl, transmissionId, transmissionSig, transmissionTime] = values as string[];
      // The event goes back byte for byte: PayPal signs the body it sent, and re-serialising it could change it.
      const body = `{"auth_algo":${JSON.stringify(authAlgo)},"cert_url":${JSON.stringify(certUrl)},"transmission_id":${JSON.stringify(transmissionId)},"transmission_sig":${JSON.stringify(transmissionSig)},"transmission_time":${JSON.stringify(transmissionTime)},"webhook_id":${JSON.stringify(config.webhookId)},"webhook_event":${call.rawBody}}`;
      const answer = await api<{ verification_status?: string }>(
        '/v1/notifications/verify-webhook-signature',
        { method: 'POST', body },
      );
      return answer.verification_status === 'SUCCESS';
    },

    readEvent(rawBody): ProviderEvent {
      const parsed = PaypalEvent.safeParse(parseJsonBody(rawBody));
      if (!parsed.success)
        throw new WebhookBodyError('Not a PayPal event: it needs id, event_type and resource.');
      return { id: parsed.data.id, type: parsed.data.event_type, change: changeOf(parsed.data) };
    },

    async listInvoices(owner: InvoiceOwner) {
      const invoices: ProviderInvoice[] = [];
      const end = new Date();
      const start = new Date(end.getTime() - 3 * 365 * 86_400_000);
      for (const subscriptionId of owner.subscriptionIds) {
        const query = new URLSearchParams({ start_time: start.toISOString(), end_time: end.toISOString() });
        const answer = readAnswer(
          Transactions,
          await api(
            `/v1/billing/subscriptions/${encodeURIComponent(subscriptionId)}/transactions?${query.toString()}`,
          ),
        );
        for (const t of answer.transactions) {
          const { currency_code: currency, value } = t.amount_with_breakdown.gross_amount;
          const date = dateOrNull(t.time);
          if (!date) continue;
          invoices.push({
            id: t.id,
            provider: 'paypal',
            date: date.toISOString(),
            amount: Number(value),
            currency,
            status: t.status.toLowerCase(),
            url: null,
          });
        }
      }
      return invoices.sort((a, b) => b.date.localeCompare(a.date));
    },
  };
}
