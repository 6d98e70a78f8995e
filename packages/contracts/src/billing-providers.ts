import { z } from 'zod';

/**
 * Billing providers (issue 21): card checkout through Chargebee's hosted pages, subscriptions through PayPal, and
 * the invoices each provider keeps. The upgrade dialog posts a CheckoutBody and sends the browser to the answer's url.
 */

/** The payment providers a checkout can go through (docs/billing.md: paymentMethod paypal or chargebee). */
export const CheckoutProvider = z.enum(
  ['chargebee', 'paypal'],
  'Choose chargebee (card) or paypal as the payment provider.',
);
export type CheckoutProvider = z.infer<typeof CheckoutProvider>;

/** POST /v1/billing/checkout: the plan chosen in the upgrade dialog. */
export const CheckoutBody = z.strictObject({
  plan: z.string('Choose a plan.').min(1, 'Choose a plan.').max(100, 'Unknown plan'),
  peopleUpperLimit: z
    .number('Choose a people limit.')
    .int('The people limit is a whole number.')
    .positive('The people limit is a whole number above 0.')
    .max(100_000_000, 'Unknown plan'),
  provider: CheckoutProvider,
});
export type CheckoutBody = z.infer<typeof CheckoutBody>;

/** Where to send the browser: the provider's hosted checkout (Chargebee) or approval page (PayPal). */
export const CheckoutAnswer = z.object({ url: z.string() });
export type CheckoutAnswer = z.infer<typeof CheckoutAnswer>;

/** One invoice (Chargebee) or completed payment (PayPal), newest first. */
export const ProviderInvoice = z.object({
  id: z.string(),
  provider: CheckoutProvider,
  /** When it was issued or paid (ISO 8601). */
  date: z.string(),
  /** In dollars (or the invoice's currency), not cents. */
  amount: z.number(),
  currency: z.string(),
  /** The provider's own word, lower case: paid, payment_due, not_paid, voided, completed, refunded... */
  status: z.string(),
  /** A page or PDF the user can open, when the provider offers a lasting one. */
  url: z.string().nullable(),
});
export type ProviderInvoice = z.infer<typeof ProviderInvoice>;

/** GET /v1/billing/invoices: empty when no provider is configured or the account never paid through one. */
export const InvoicesAnswer = z.object({ invoices: z.array(ProviderInvoice) });
export type InvoicesAnswer = z.infer<typeof InvoicesAnswer>;

export const billingProviderMessages = {
  missingAccountEmail: 'Missing account email.',
  billingOff: 'Billing is off on this server: every account is unlimited.',
  chargebeeOff: 'Card payments are not set up on this server (CHARGEBEE_SITE and CHARGEBEE_API_KEY).',
  paypalOff: 'PayPal is not set up on this server (PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET).',
  providerUnavailable: 'The payment provider could not be reached. Please try again in a few minutes.',
  noPaypalPlan: 'This plan cannot be paid through PayPal yet: no PayPal plan is set up for it.',
  alreadyOnPlan: 'This account already pays for this plan.',
  paysByCard:
    'This account pays by card: change the plan with card payment, or cancel that subscription first.',
  paysByPaypal:
    'This account pays through PayPal: change the plan with PayPal, or cancel that subscription first.',
} as const;
