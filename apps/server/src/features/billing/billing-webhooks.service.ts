import type { CheckoutProvider } from '@herald/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { AppError, badRequest, forbidden, unauthorized } from '../../http/errors.ts';
import type { Services } from '../../services.ts';
import { findAccountBilling } from './billing.queries.ts';
import {
  accountExists,
  findSubscription,
  hasOtherActiveSubscription,
  recordEvent,
  saveSubscription,
  setEventOutcome,
  type SubscriptionRow,
} from './billing-providers.queries.ts';
import { configuredProviders, unavailable } from './billing-providers.service.ts';
import { assignPlan } from './plan-assignment.ts';
import {
  ProviderError,
  WebhookBodyError,
  type BillingProvider,
  type HeraldPlanRef,
  type ProviderEvent,
  type ProviderEventChange,
  type WebhookCall,
} from './providers/provider.ts';

/**
 * The providers' webhooks (issue 21). Order of checks: configured (else 403), authentic (else 401, before the body is
 * read for anything but PayPal's own check), an event of the provider (else 400). Then the event's id is kept in the
 * same transaction as its changes, so a replayed or retried event answers 200 and changes nothing. Events for a
 * subscription Herald does not know, or that Herald cannot apply (unknown plan, a plan below the people count), are
 * answered 200 so the provider stops retrying, kept with their outcome and logged; nothing changes.
 */

export interface WebhookAnswer {
  received: boolean;
  duplicate: boolean;
  outcome: string;
}

const notConfigured: Record<CheckoutProvider, string> = {
  chargebee:
    'The Chargebee webhook is not configured: set CHARGEBEE_SITE, CHARGEBEE_API_KEY and CHARGEBEE_WEBHOOK_AUTH.',
  paypal:
    'The PayPal webhook is not configured: set PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET and PAYPAL_WEBHOOK_ID.',
};

export async function receiveBillingWebhook(
  services: Services,
  name: CheckoutProvider,
  call: WebhookCall,
  log: FastifyBaseLogger,
): Promise<WebhookAnswer> {
  const provider = configuredProviders(services.config)[name];
  const secretSet =
    name === 'chargebee'
      ? services.config.billing.chargebee?.webhookAuth
      : services.config.billing.paypal?.webhookId;
  if (!provider || !secretSet) throw forbidden(notConfigured[name]);
  let authentic: boolean;
  try {
    authentic = await provider.verifyWebhook(call);
  } catch (error) {
    if (error instanceof WebhookBodyError) authentic = false;
    // PayPal's check could not run: 503, so that PayPal delivers the event again later.
    else if (error instanceof ProviderError) throw unavailable(error, log);
    else throw error;
  }
  if (!authentic) {
    log.warn({ provider: name }, 'billing webhook refused: not signed by the provider');
    throw unauthorized(
      name === 'chargebee'
        ? 'Wrong or missing webhook credentials.'
        : 'The PayPal signature does not verify.',
    );
  }
  let event: ProviderEvent;
  try {
    event = provider.readEvent(call.rawBody);
  } catch (error) {
    if (error instanceof WebhookBodyError) throw badRequest(error.message);
    throw error;
  }
  const answer = await handleEvent(services, provider, event, log);
  log.info({ provider: name, eventId: event.id, eventType: event.type, ...answer }, 'billing webhook');
  return answer;
}

async function handleEvent(
  services: Services,
  provider: BillingProvider,
  event: ProviderEvent,
  log: FastifyBaseLogger,
): Promise<WebhookAnswer> {
  const { change } = event;
  const keep = async (accountId: number | null, outcome: string) => {
    const fresh = await recordEvent(services.db, {
      provider: provider.name,
      eventId: event.id,
      eventType: event.type,
      accountId,
      outcome,
    });
    return { received: true, duplicate: !fresh, outcome };
  };
  if (change.kind === 'ignored') return keep(null, 'ignored: not an event Herald acts on');
  const subscription =
    (await findSubscription(services.db, provider.name, change.subscriptionId)) ??
    (await adoptChargebeeSubscription(services.db, provider, change));
  if (!subscription) {
    log.warn(
      { provider: provider.name, eventId: event.id, subscriptionId: change.subscriptionId },
      'billing webhook for a subscription Herald does not know',
    );
    return keep(null, 'ignored: unknown subscription');
  }
  // PayPal names its own plan id: look it up (outside the transaction) when it is not the one sold at checkout.
  let plan: HeraldPlanRef = { name: subscription.planName, peopleUpperLimit: subscription.peopleUpperLimit };
  if (change.kind === 'subscription') {
    if (change.plan) plan = change.plan;
    else if (change.providerPlanId && change.providerPlanId !== subscription.providerPlanId) {
      const named = await provider.planOfProviderPlan(change.providerPlanId).catch((error: unknown) => {
        if (error instanceof ProviderError) throw unavailable(error, log);
        throw error;
      });
      plan = named ?? { name: `unknown plan ${change.providerPlanId}`, peopleUpperLimit: 0 };
    }
  }
  return withAccount(services.db, subscription.accountId, async (db) => {
    const fresh = await recordEvent(db, {
      provider: provider.name,
      eventId: event.id,
      eventType: event.type,
      accountId: subscription.accountId,
      outcome: 'applying',
    });
    if (!fresh) return { received: true, duplicate: true, outcome: 'already handled' };
    const outcome = await apply(db, provider.name, subscription, change, plan, log);
    await setEventOutcome(db, provider.name, event.id, outcome);
    return { received: true, duplicate: false, outcome };
  });
}

/**
 * A Chargebee subscription Herald did not start (created in Chargebee's own screens) still belongs to an account when
 * its customer is one Herald created at a checkout (`herald-<account id>`).
 */
async function adoptChargebeeSubscription(
  db: Database,
  provider: BillingProvider,
  change: Exclude<ProviderEventChange, { kind: 'ignored' }>,
): Promise<SubscriptionRow | undefined> {
  if (provider.name !== 'chargebee' || change.kind !== 'subscription' || !change.plan) return undefined;
  const match = /^herald-(\d{1,15})$/.exec(change.customerId ?? '');
  if (!match || !(await accountExists(db, Number(match[1])))) return undefined;
  return {
    accountId: Number(match[1]),
    provider: 'chargebee',
    subscriptionId: change.subscriptionId,
    customerId: change.customerId,
    planName: change.plan.name,
    peopleUpperLimit: change.plan.peopleUpperLimit,
    providerPlanId: change.providerPlanId,
    status: 'pending',
    lastPaymentId: null,
  };
}

async function apply(
  db: Database,
  name: CheckoutProvider,
  subscription: SubscriptionRow,
  change: Exclude<ProviderEventChange, { kind: 'ignored' }>,
  plan: HeraldPlanRef,
  log: FastifyBaseLogger,
): Promise<string> {
  const key = {
    accountId: subscription.accountId,
    provider: name,
    subscriptionId: subscription.subscriptionId,
  };
  const base = { planName: subscription.planName, peopleUpperLimit: subscription.peopleUpperLimit };
  const customer = change.customerId ? { customerId: change.customerId } : {};
  if (change.kind === 'payment') {
    if (subscription.lastPaymentId === change.paymentId) return 'payment already recorded';
    await saveSubscription(db, key, base, {
      ...customer,
      lastPaymentId: change.paymentId,
      lastPaymentAt: change.paidAt,
      lastPaymentAmount: change.amount.toFixed(2),
      lastPaymentCurrency: change.currency,
    });
    return `payment recorded: ${change.amount.toFixed(2)} ${change.currency}`;
  }
  const details = {
    ...customer,
    providerStatus: change.providerStatus,
    currentTermEnd: change.currentTermEnd,
    ...(change.providerPlanId ? { providerPlanId: change.providerPlanId } : {}),
  };
  if (change.state === 'pending') {
    await saveSubscription(db, key, base, details);
    return `recorded: ${change.providerStatus}`;
  }
  if (change.state === 'active') {
    try {
      await assignPlan(db, subscription.accountId, {
        planName: plan.name,
        peopleUpperLimit: plan.peopleUpperLimit,
        provider: name,
        status: 'active',
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
      log.warn(
        { provider: name, accountId: subscription.accountId, plan, reason: error.message },
        'billing webhook not applied',
      );
      return `refused: ${error.message}`;
    }
    await saveSubscription(db, key, base, {
      ...details,
      status: 'active',
      planName: plan.name,
      peopleUpperLimit: plan.peopleUpperLimit,
    });
    return `active: ${plan.name} up to ${plan.peopleUpperLimit}`;
  }
  await saveSubscription(db, key, base, { ...details, status: 'canceled' });
  // Ending an old subscription must not end the plan that a newer one (or the operator) gave the account.
  const account = await findAccountBilling(db, subscription.accountId);
  const current =
    account?.planProvider === name &&
    account.planName === subscription.planName &&
    account.planPeopleUpperLimit === subscription.peopleUpperLimit;
  if (
    !current ||
    (await hasOtherActiveSubscription(db, subscription.accountId, name, subscription.subscriptionId))
  )
    return 'canceled: the account keeps its current plan';
  await assignPlan(db, subscription.accountId, {
    planName: subscription.planName,
    peopleUpperLimit: subscription.peopleUpperLimit,
    provider: name,
    status: 'canceled',
  });
  return `canceled: ${subscription.planName}`;
}
