import type { CheckoutProvider, Plan, ProviderInvoice } from '@herald/contracts';

/**
 * One interface for every payment provider (issue 21). Herald starts a checkout on the provider's own page, learns
 * the outcome only from the provider's signed webhooks, and lists invoices from the provider's API. Nothing here
 * touches the database: the billing-providers service stores what these return.
 */
export interface BillingProvider {
  readonly name: CheckoutProvider;
  /** Create the provider's checkout for `request.plan`; the browser is sent to the answer's url. */
  startCheckout(request: CheckoutRequest): Promise<CheckoutStart>;
  /** The provider's page that moves the account's paying subscription to `request.plan` (no second subscription). */
  startPlanChange(request: PlanChangeRequest): Promise<{ url: string }>;
  /** The Herald plan a provider's plan id stands for (by the naming rule in docs/billing.md), or null. */
  planOfProviderPlan(providerPlanId: string): Promise<HeraldPlanRef | null>;
  /** Whether the call really comes from the provider (basic auth, or the provider's signature check). */
  verifyWebhook(call: WebhookCall): Promise<boolean>;
  /** What an event body means for Herald; throws WebhookBodyError when it is not an event of this provider. */
  readEvent(rawBody: string): ProviderEvent;
  /** The account's invoices (Chargebee) or completed payments (PayPal), newest first. */
  listInvoices(owner: InvoiceOwner): Promise<ProviderInvoice[]>;
}

export interface CheckoutRequest {
  accountId: number;
  /** The account's email, prefilled on the provider's page (docs/billing.md). */
  email: string;
  accountName: string | null;
  plan: Plan;
  /** Herald's id for the subscription this checkout creates (Chargebee) or a request id (PayPal idempotency). */
  reference: string;
  /** Where the provider sends the browser back after paying, and after giving up. */
  returnUrl: string;
  cancelUrl: string;
}

export interface PlanChangeRequest extends CheckoutRequest {
  /** The provider's id of the subscription the account pays with now. */
  subscriptionId: string;
}

export interface CheckoutStart {
  url: string;
  /** The provider's subscription id when it exists already (PayPal creates it before approval; Chargebee on payment). */
  subscriptionId: string;
  customerId: string | null;
  /** The provider's id of the plan sold (Chargebee item price, PayPal plan). */
  providerPlanId: string;
}

export interface WebhookCall {
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface HeraldPlanRef {
  name: string;
  peopleUpperLimit: number;
}

/** Herald's reading of a subscription: paying (active), ended (canceled), or a state that changes nothing yet. */
export type SubscriptionState = 'active' | 'canceled' | 'pending';

export type ProviderEventChange =
  | {
      kind: 'subscription';
      subscriptionId: string;
      customerId: string | null;
      state: SubscriptionState;
      /** The provider's own status word, kept for support. */
      providerStatus: string;
      /** The Herald plan the subscription names, when the event says (Chargebee item price id, PayPal plan id). */
      plan: HeraldPlanRef | null;
      /** The provider's plan id when Herald must look its plan up (PayPal plan ids are PayPal's). */
      providerPlanId: string | null;
      currentTermEnd: Date | null;
    }
  | {
      kind: 'payment';
      subscriptionId: string;
      customerId: string | null;
      paymentId: string;
      amount: number;
      currency: string;
      paidAt: Date;
    }
  | { kind: 'ignored' };

export interface ProviderEvent {
  id: string;
  type: string;
  change: ProviderEventChange;
}

export interface InvoiceOwner {
  customerIds: string[];
  subscriptionIds: string[];
}

/** The webhook body is not an event this provider sends (answered 400). */
export class WebhookBodyError extends Error {}

/** The provider refused a call or could not be reached; `status` is its HTTP status (0 when unreachable). */
export class ProviderError extends Error {
  constructor(
    readonly provider: CheckoutProvider,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** Calls to the providers wait at most this long (their hosts are fixed by configuration, never user input). */
export const providerTimeoutMs = 15_000;

/** A JSON call to a provider with a time-out; non-2xx answers and network failures become ProviderError. */
export async function callProvider<T>(
  provider: CheckoutProvider,
  url: string,
  init: RequestInit,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      ...init,
      redirect: 'error',
      signal: AbortSignal.timeout(providerTimeoutMs),
    });
  } catch (error) {
    throw new ProviderError(provider, 0, `${provider} could not be reached: ${(error as Error).message}`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw new ProviderError(
      provider,
      response.status,
      `${provider} answered ${response.status} with a body that is not JSON`,
    );
  }
  if (!response.ok) {
    const message = (body as { message?: unknown }).message;
    throw new ProviderError(
      provider,
      response.status,
      `${provider} answered ${response.status}: ${typeof message === 'string' ? message : text.slice(0, 200)}`,
    );
  }
  return body as T;
}

/** The value of one request header, whatever its case and however many times it was sent. */
export function headerOf(headers: WebhookCall['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** A JSON body or WebhookBodyError. */
export function parseJsonBody(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody) as unknown;
  } catch {
    throw new WebhookBodyError('The webhook body is not JSON.');
  }
}
