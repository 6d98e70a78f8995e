import type { CheckoutProvider } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

/** Billing providers' tables (migration 0030): provider subscriptions per account and webhook events kept once. */

export interface PendingSubscription {
  accountId: number;
  provider: CheckoutProvider;
  subscriptionId: string;
  customerId: string | null;
  planName: string;
  peopleUpperLimit: number;
  providerPlanId: string | null;
}

/** The subscription a checkout starts; the same one again (PayPal's idempotent create) keeps one row. */
export async function insertPendingSubscription(db: Database, row: PendingSubscription): Promise<void> {
  await db
    .insertInto('billingSubscriptions')
    .values({ ...row, status: 'pending' })
    .onConflict((oc) =>
      oc.columns(['accountId', 'provider', 'subscriptionId']).doUpdateSet({ updatedAt: sql`now()` }),
    )
    .execute();
}

const subscriptionColumns = [
  'accountId',
  'provider',
  'subscriptionId',
  'customerId',
  'planName',
  'peopleUpperLimit',
  'providerPlanId',
  'status',
  'lastPaymentId',
] as const;

/** The account a provider's subscription belongs to, across accounts (webhooks run before any account is known). */
export async function findSubscription(db: Database, provider: CheckoutProvider, subscriptionId: string) {
  const row = await db
    .selectFrom('billingSubscriptions')
    .select(subscriptionColumns)
    .where('provider', '=', provider)
    .where('subscriptionId', '=', subscriptionId)
    .executeTakeFirst();
  return row ? { ...row, accountId: Number(row.accountId) } : undefined;
}
export type SubscriptionRow = NonNullable<Awaited<ReturnType<typeof findSubscription>>>;

export async function accountExists(db: Database, accountId: number): Promise<boolean> {
  return (
    (await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst()) !==
    undefined
  );
}

/**
 * Keep a provider event's id with its outcome. False when the id was kept already: the event was handled before
 * (a replay or the provider's retry), and nothing may change again.
 */
export async function recordEvent(
  db: Database,
  event: {
    provider: CheckoutProvider;
    eventId: string;
    eventType: string;
    accountId: number | null;
    outcome: string;
  },
): Promise<boolean> {
  const rows = await db
    .insertInto('billingWebhookEvents')
    .values(event)
    .onConflict((oc) => oc.columns(['provider', 'eventId']).doNothing())
    .returning('eventId')
    .execute();
  return rows.length > 0;
}

export async function setEventOutcome(
  db: Database,
  provider: CheckoutProvider,
  eventId: string,
  outcome: string,
): Promise<void> {
  await db
    .updateTable('billingWebhookEvents')
    .set({ outcome })
    .where('provider', '=', provider)
    .where('eventId', '=', eventId)
    .execute();
}

export interface SubscriptionChanges {
  status?: 'pending' | 'active' | 'canceled';
  providerStatus?: string;
  customerId?: string;
  planName?: string;
  peopleUpperLimit?: number;
  providerPlanId?: string;
  currentTermEnd?: Date | null;
  lastPaymentId?: string;
  lastPaymentAt?: Date;
  lastPaymentAmount?: string;
  lastPaymentCurrency?: string;
}

/** Create or update the account's row of a subscription (a Chargebee subscription may be new to Herald). */
export async function saveSubscription(
  db: Database,
  key: { accountId: number; provider: CheckoutProvider; subscriptionId: string },
  base: { planName: string; peopleUpperLimit: number },
  changes: SubscriptionChanges,
): Promise<void> {
  await db
    .insertInto('billingSubscriptions')
    .values({ ...key, ...base, ...changes })
    .onConflict((oc) =>
      oc
        .columns(['accountId', 'provider', 'subscriptionId'])
        .doUpdateSet({ ...changes, updatedAt: sql`now()` }),
    )
    .execute();
}

/** Whether another of the account's subscriptions is paying, so ending this one must not end the plan. */
export async function hasOtherActiveSubscription(
  db: Database,
  accountId: number,
  provider: CheckoutProvider,
  subscriptionId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('billingSubscriptions')
    .select('subscriptionId')
    .where('accountId', '=', accountId)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('provider', '!=', provider), eb('subscriptionId', '!=', subscriptionId)]))
    .executeTakeFirst();
  return row !== undefined;
}

/** The subscriptions the provider knows as started (paid at least once or ended), to list their invoices. */
export async function startedSubscriptions(db: Database, accountId: number) {
  return db
    .selectFrom('billingSubscriptions')
    .select(['provider', 'subscriptionId', 'customerId'])
    .where('accountId', '=', accountId)
    .where((eb) => eb.or([eb('status', '!=', 'pending'), eb('lastPaymentId', 'is not', null)]))
    .execute();
}

/** The subscription the account pays with now (the latest to become active), if any. */
export async function payingSubscription(db: Database, accountId: number) {
  return db
    .selectFrom('billingSubscriptions')
    .select(['provider', 'subscriptionId', 'planName', 'peopleUpperLimit'])
    .where('accountId', '=', accountId)
    .where('status', '=', 'active')
    .orderBy('updatedAt', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The email and name a checkout prefills on the provider's page. */
export async function findCheckoutAccount(db: Database, accountId: number) {
  return db
    .selectFrom('accounts')
    .select(['email', 'name', 'accountName'])
    .where('id', '=', accountId)
    .executeTakeFirst();
}
