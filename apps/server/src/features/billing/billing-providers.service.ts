import crypto from 'node:crypto';
import {
  billingProviderMessages,
  lookupPlan,
  unknownPlanMessage,
  type CheckoutAnswer,
  type CheckoutBody,
  type CheckoutProvider,
  type ProviderInvoice,
} from '@herald/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/connection.ts';
import { AppError, badRequest, conflict } from '../../http/errors.ts';
import { countAccountPeople } from './billing.queries.ts';
import {
  findCheckoutAccount,
  insertPendingSubscription,
  payingSubscription,
  startedSubscriptions,
} from './billing-providers.queries.ts';
import { planBelowPeopleCount } from './plan-assignment.ts';
import { chargebeeItemPriceId, createChargebee } from './providers/chargebee.ts';
import { createPaypal, paypalPlanName } from './providers/paypal.ts';
import { ProviderError, type BillingProvider } from './providers/provider.ts';

/**
 * Checkout and invoices through the configured payment providers (issue 21). The plan is checked against the
 * catalogue and the account's people before the provider is called; the provider's page does the paying, and
 * the plan changes only when the provider's webhook says so (billing-webhooks.service.ts).
 */

type ConfiguredProviders = Partial<Record<CheckoutProvider, BillingProvider>>;
const registry = new WeakMap<Config['billing'], ConfiguredProviders>();

/** The providers this server's configuration enables, one client each (PayPal keeps its token between calls). */
export function configuredProviders(config: Config): ConfiguredProviders {
  let providers = registry.get(config.billing);
  if (!providers) {
    providers = {
      ...(config.billing.chargebee ? { chargebee: createChargebee(config.billing.chargebee) } : {}),
      ...(config.billing.paypal ? { paypal: createPaypal(config.billing.paypal) } : {}),
    };
    registry.set(config.billing, providers);
  }
  return providers;
}

/** A provider that failed: 503 for the user (the provider's words go to the log, not to the page). */
export function unavailable(error: ProviderError, log: FastifyBaseLogger): AppError {
  log.warn(
    { provider: error.provider, status: error.status, err: error.message },
    'payment provider call failed',
  );
  return new AppError('ServiceError', billingProviderMessages.providerUnavailable, {
    errorCode: `${error.provider}-unavailable`,
  });
}

/** Plans that are never bought at a checkout: grandfathered ones (no price) and marketplace ones (redeemed with a code). */
const forSale = (plan: { name: string; price: number | null }) =>
  plan.price !== null && !plan.name.startsWith('marketplace-');

/** POST /v1/billing/checkout: the provider's checkout page for this plan, prefilled with the account's email and id. */
export async function startCheckout(
  config: Config,
  db: Database,
  accountId: number,
  body: CheckoutBody,
  log: FastifyBaseLogger,
): Promise<CheckoutAnswer> {
  if (config.billing.mode === 'off') throw badRequest(billingProviderMessages.billingOff);
  const provider = configuredProviders(config)[body.provider];
  if (!provider)
    throw badRequest(
      body.provider === 'chargebee'
        ? billingProviderMessages.chargebeeOff
        : billingProviderMessages.paypalOff,
    );
  const plan = lookupPlan(body.plan, body.peopleUpperLimit);
  if (!plan || !forSale(plan)) throw badRequest(unknownPlanMessage);
  const account = await findCheckoutAccount(db, accountId);
  if (!account?.email.trim()) throw badRequest(billingProviderMessages.missingAccountEmail);
  const peopleCount = await countAccountPeople(db, accountId);
  if (peopleCount > plan.peopleUpperLimit)
    throw new AppError('BadRequestError', planBelowPeopleCount(peopleCount, plan), {
      errorCode: 'plan-below-people-count',
    });

  // A paying subscription is changed in place: a second one would charge the account twice.
  const paying = await payingSubscription(db, accountId);
  if (paying && paying.provider !== body.provider)
    throw conflict(
      paying.provider === 'chargebee'
        ? billingProviderMessages.paysByCard
        : billingProviderMessages.paysByPaypal,
      'pays-elsewhere',
    );
  if (paying && paying.planName === plan.name && paying.peopleUpperLimit === plan.peopleUpperLimit)
    throw badRequest(billingProviderMessages.alreadyOnPlan);

  const back = `${config.publicUrl.replace(/\/+$/, '')}/billing`;
  const request = {
    accountId,
    email: account.email.trim(),
    accountName: account.accountName ?? account.name,
    plan,
    reference: `hrld-${accountId}-${crypto.randomBytes(8).toString('hex')}`,
    returnUrl: `${back}?checkout=done`,
    cancelUrl: `${back}?checkout=canceled`,
  };
  let started;
  try {
    if (paying) {
      const { url } = await provider.startPlanChange({ ...request, subscriptionId: paying.subscriptionId });
      log.info(
        {
          accountId,
          provider: body.provider,
          plan: plan.name,
          peopleUpperLimit: plan.peopleUpperLimit,
          subscriptionId: paying.subscriptionId,
        },
        'plan change started',
      );
      return { url };
    }
    started = await provider.startCheckout(request);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (error.provider === 'paypal' && error.status === 404)
      throw badRequest(`${billingProviderMessages.noPaypalPlan} (${paypalPlanName(plan)})`);
    if (error.provider === 'chargebee' && error.status === 404)
      throw badRequest(
        `This plan is not set up in Chargebee yet (item price ${chargebeeItemPriceId(plan)}).`,
      );
    throw unavailable(error, log);
  }
  await insertPendingSubscription(db, {
    accountId,
    provider: body.provider,
    subscriptionId: started.subscriptionId,
    customerId: started.customerId,
    planName: plan.name,
    peopleUpperLimit: plan.peopleUpperLimit,
    providerPlanId: started.providerPlanId,
  });
  log.info(
    {
      accountId,
      provider: body.provider,
      plan: plan.name,
      peopleUpperLimit: plan.peopleUpperLimit,
      subscriptionId: started.subscriptionId,
    },
    'checkout started',
  );
  return { url: started.url };
}

/** GET /v1/billing/invoices: every configured provider's invoices of the account's subscriptions, newest first. */
export async function listInvoices(
  config: Config,
  db: Database,
  accountId: number,
  log: FastifyBaseLogger,
): Promise<{ invoices: ProviderInvoice[] }> {
  if (config.billing.mode === 'off') return { invoices: [] };
  const providers = configuredProviders(config);
  const subscriptions = await startedSubscriptions(db, accountId);
  const invoices: ProviderInvoice[] = [];
  for (const name of ['chargebee', 'paypal'] as const) {
    const provider = providers[name];
    const mine = subscriptions.filter((s) => s.provider === name);
    if (!provider || mine.length === 0) continue;
    const customerIds = [...new Set(mine.map((s) => s.customerId).filter((id): id is string => id !== null))];
    const subscriptionIds = [...new Set(mine.map((s) => s.subscriptionId))];
    try {
      invoices.push(...(await provider.listInvoices({ customerIds, subscriptionIds })));
    } catch (error) {
      if (error instanceof ProviderError) throw unavailable(error, log);
      throw error;
    }
  }
  return { invoices: invoices.sort((a, b) => b.date.localeCompare(a.date)) };
}
