import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Billing providers (issue 21). `billing_subscriptions` holds each subscription an account started through a
 * provider: written at checkout (Herald's id for Chargebee, PayPal's id once PayPal created it) with the plan it is
 * for, then kept up to date by the provider's webhooks. `billing_webhook_events` keeps every provider event id once:
 * the event's changes are written in the same transaction as its row, so the same event again changes nothing.
 * The events table is instance-level (an event is read before its account is known), like sessions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table billing_subscriptions (
      account_id bigint not null references accounts (id) on delete cascade,
      provider text not null check (provider in ('chargebee', 'paypal')),
      subscription_id text not null,
      customer_id text,
      plan_name text not null,
      people_upper_limit integer not null,
      provider_plan_id text,
      -- pending until the provider says it is paid for; then active or canceled.
      status text not null default 'pending' check (status in ('pending', 'active', 'canceled')),
      provider_status text,
      current_term_end timestamptz,
      last_payment_id text,
      last_payment_at timestamptz,
      last_payment_amount numeric(12, 2),
      last_payment_currency text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id, provider, subscription_id)
    );
    -- Webhooks name the provider's subscription, not the account: this finds the account.
    create unique index billing_subscriptions_provider_id on billing_subscriptions (provider, subscription_id);

    create table billing_webhook_events (
      provider text not null check (provider in ('chargebee', 'paypal')),
      event_id text not null,
      event_type text not null,
      account_id bigint references accounts (id) on delete set null,
      outcome text not null,
      received_at timestamptz not null default now(),
      primary key (provider, event_id)
    );
  `.execute(db);
  // The events table is written before its account is known (by the owner role, which row-level security does not
  // bind); under an account it holds only that account's events, like every tenant table.
  await protectTenantTables(db, ['billing_subscriptions', 'billing_webhook_events']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table billing_webhook_events`.execute(db);
  await sql`drop table billing_subscriptions`.execute(db);
}
