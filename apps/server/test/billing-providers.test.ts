import { allPlans, billingProviderMessages, scopeIds } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, publicUrl, registerUser, type TestContext } from './helpers.ts';
import { providerEnv, stockProviders } from './billing-standins.ts';
import { startChargebeeStandIn, type ChargebeeStandIn } from './chargebee-standin.ts';
import { startPaypalStandIn, type PaypalStandIn } from './paypal-standin.ts';

let chargebee: ChargebeeStandIn;
let paypal: PaypalStandIn;
let ctx: TestContext;
let none: TestContext;
let off: TestContext;
beforeAll(async () => {
  chargebee = await startChargebeeStandIn();
  paypal = await startPaypalStandIn();
  stockProviders(chargebee, paypal, allPlans);
  ctx = await createTestContext(providerEnv(chargebee, paypal));
  none = await createTestContext({ BILLING_MODE: 'plans' });
  const { BILLING_MODE: _mode, ...providersOnly } = providerEnv(chargebee, paypal);
  off = await createTestContext(providersOnly);
});
afterAll(async () => {
  await Promise.all([ctx.close(), none.close(), off.close()]);
  await Promise.all([chargebee.close(), paypal.close()]);
});

const growth = { plan: 'growth-monthly-v1', peopleUpperLimit: 2000 };
const subscriptionsOf = (accountId: number) =>
  ctx.services.db.selectFrom('billingSubscriptions').selectAll().where('accountId', '=', accountId).execute();

async function setScopes(accountId: number, enabled: string[]) {
  const scopes = scopeIds.map((id) => ({ id, enabled: enabled.includes(id) }));
  await sql`update team_members set is_owner = false, scopes = ${JSON.stringify(scopes)}::jsonb where account_id = ${accountId}`.execute(
    ctx.services.db,
  );
}

describe('POST /v1/billing/checkout with Chargebee', () => {
  it("answers Chargebee's hosted checkout page for the plan's item price, with the account's email and customer id", async () => {
    const { client, account, email } = await registerUser(ctx.app);
    const before = chargebee.requests.length;
    const res = await client.post('/v1/billing/checkout', { ...growth, provider: 'chargebee' });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(/^https:\/\/herald-test\.chargebee\.com\/pages\/v3\/[0-9a-f]+\/$/);
    const sent = chargebee.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/api/v2/hosted_pages/checkout_new_for_items');
    expect(sent[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = chargebee.form(sent[0]!);
    expect(form).toMatchObject({
      'subscription_items[item_price_id][0]': 'growth-monthly-v1-2000',
      'subscription_items[quantity][0]': '1',
      'customer[id]': `herald-${account.accountId}`,
      'customer[email]': email,
      redirect_url: `${publicUrl}/billing?checkout=done`,
      cancel_url: `${publicUrl}/billing?checkout=canceled`,
    });
    expect(form['subscription[id]']).toMatch(new RegExp(`^hrld-${account.accountId}-[0-9a-f]{16}$`));
    // Nothing is paid yet: the subscription waits for Chargebee's webhook and the plan is unchanged.
    expect(await subscriptionsOf(account.accountId)).toMatchObject([
      {
        provider: 'chargebee',
        subscriptionId: form['subscription[id]'],
        customerId: `herald-${account.accountId}`,
        planName: 'growth-monthly-v1',
        peopleUpperLimit: 2000,
        status: 'pending',
      },
    ]);
    expect((await client.get('/v1/billing')).body.plan).toBeNull();
  });

  it('a plan Chargebee does not sell yet is a clear 400, and nothing is stored', async () => {
    const { client, account } = await registerUser(ctx.app);
    chargebee.itemPrices.delete('premium-annual-v3-5000');
    const res = await client.post('/v1/billing/checkout', {
      plan: 'premium-annual-v3',
      peopleUpperLimit: 5000,
      provider: 'chargebee',
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'This plan is not set up in Chargebee yet (item price premium-annual-v3-5000).',
    );
    expect(await subscriptionsOf(account.accountId)).toEqual([]);
  });

  it('Chargebee down: 503 with a message to try again, nothing stored', async () => {
    const { client, account } = await registerUser(ctx.app);
    chargebee.failNext(503);
    const res = await client.post('/v1/billing/checkout', { ...growth, provider: 'chargebee' });
    expect(res.status).toBe(503);
    expect(res.body.message).toBe(billingProviderMessages.providerUnavailable);
    expect(await subscriptionsOf(account.accountId)).toEqual([]);
  });
});

describe('POST /v1/billing/checkout with PayPal', () => {
  it('creates the PayPal subscription for the PayPal plan named by the rule and answers its approval link', async () => {
    const { client, account, email } = await registerUser(ctx.app);
    const before = paypal.requests.length;
    const res = await client.post('/v1/billing/checkout', {
      plan: 'paypal-monthly-v1',
      peopleUpperLimit: 5000,
      provider: 'paypal',
    });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(
      /^https:\/\/www\.sandbox\.paypal\.com\/webapps\/billing\/subscriptions\?ba_token=BA-/,
    );
    const create = paypal.requests.slice(before).find((r) => r.path === '/v1/billing/subscriptions')!;
    expect(create.headers.authorization).toMatch(/^Bearer A21AA/);
    expect(create.headers['paypal-request-id']).toMatch(new RegExp(`^hrld-${account.accountId}-`));
    const planId = paypal.plans.find((p) => p.name === 'paypal-monthly-v1-5000')!.id;
    expect(JSON.parse(create.body)).toMatchObject({
      plan_id: planId,
      custom_id: String(account.accountId),
      subscriber: { email_address: email },
      application_context: {
        return_url: `${publicUrl}/billing?checkout=done`,
        cancel_url: `${publicUrl}/billing?checkout=canceled`,
      },
    });
    const [row] = await subscriptionsOf(account.accountId);
    expect(row).toMatchObject({
      provider: 'paypal',
      planName: 'paypal-monthly-v1',
      peopleUpperLimit: 5000,
      providerPlanId: planId,
      status: 'pending',
    });
    expect(row!.subscriptionId).toMatch(/^I-/);
    // The token is kept between calls: a second checkout asks for none.
    const tokensBefore = paypal.requests.filter((r) => r.path === '/v1/oauth2/token').length;
    expect(
      (
        await client.post('/v1/billing/checkout', {
          plan: 'paypal-monthly-v1',
          peopleUpperLimit: 2000,
          provider: 'paypal',
        })
      ).status,
    ).toBe(200);
    expect(paypal.requests.filter((r) => r.path === '/v1/oauth2/token')).toHaveLength(tokensBefore);
  });

  it('a plan with no PayPal plan set up is a clear 400', async () => {
    const { client, account } = await registerUser(ctx.app);
    const res = await client.post('/v1/billing/checkout', { ...growth, provider: 'paypal' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`${billingProviderMessages.noPaypalPlan} (growth-monthly-v1-2000)`);
    expect(await subscriptionsOf(account.accountId)).toEqual([]);
  });
});

describe('checkout refusals', () => {
  it("'Unknown plan' for a name or people limit that matches no plan, and for plans never sold at a checkout", async () => {
    const { client, account } = await registerUser(ctx.app);
    const before = chargebee.requests.length + paypal.requests.length;
    for (const body of [
      { plan: 'enterprise-v9', peopleUpperLimit: 2000 },
      { plan: 'growth-monthly-v1', peopleUpperLimit: 2500 },
      { plan: 'premium-monthly-v2', peopleUpperLimit: 2000 },
      { plan: 'marketplace-growth-monthly-v1', peopleUpperLimit: 2000 },
    ]) {
      const res = await client.post('/v1/billing/checkout', { ...body, provider: 'chargebee' });
      expect([body, res.status, res.body.message]).toEqual([body, 400, 'Unknown plan']);
    }
    expect(chargebee.requests.length + paypal.requests.length).toBe(before);
    expect(await subscriptionsOf(account.accountId)).toEqual([]);
  });

  it("'Missing account email.' when the account has no email", async () => {
    const { client, account } = await registerUser(ctx.app);
    await sql`update accounts set email = '' where id = ${account.accountId}`.execute(ctx.services.db);
    const res = await client.post('/v1/billing/checkout', { ...growth, provider: 'chargebee' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Missing account email.');
  });

  it('a plan below the current people count is refused before the provider is called', async () => {
    const { client, account } = await registerUser(ctx.app);
    await sql`insert into people (account_id, email) select ${account.accountId}, 'p' || g || '@example.com' from generate_series(1, 2001) g`.execute(
      ctx.services.db,
    );
    const before = chargebee.requests.length;
    const res = await client.post('/v1/billing/checkout', { ...growth, provider: 'chargebee' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'plan-below-people-count' });
    expect(res.body.message).toContain('2,001 people, more than the 2,000');
    expect(chargebee.requests.length).toBe(before);
    expect(
      (
        await client.post('/v1/billing/checkout', {
          plan: 'growth-monthly-v1',
          peopleUpperLimit: 5000,
          provider: 'chargebee',
        })
      ).status,
    ).toBe(200);
  });

  it('bad bodies are 400 with the reason', async () => {
    const { client } = await registerUser(ctx.app);
    const cases: [unknown, RegExp][] = [
      [{ ...growth, provider: 'stripe' }, /chargebee \(card\) or paypal/],
      [{ ...growth, peopleUpperLimit: -5, provider: 'paypal' }, /above 0/],
      [{ ...growth, peopleUpperLimit: 20.5, provider: 'paypal' }, /whole number/],
      [{ peopleUpperLimit: 2000, provider: 'paypal' }, /Choose a plan/],
      [{ ...growth, provider: 'chargebee', price: 0 }, /price|unrecognized/i],
    ];
    for (const [body, message] of cases) {
      const res = await client.post('/v1/billing/checkout', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
  });

  it('a provider this server has not set up is a clear 400', async () => {
    const { client } = await registerUser(none.app);
    const card = await client.post('/v1/billing/checkout', { ...growth, provider: 'chargebee' });
    expect([card.status, card.body.message]).toEqual([400, billingProviderMessages.chargebeeOff]);
    const pp = await client.post('/v1/billing/checkout', {
      plan: 'paypal-monthly-v1',
      peopleUpperLimit: 2000,
      provider: 'paypal',
    });
    expect([pp.status, pp.body.message]).toEqual([400, billingProviderMessages.paypalOff]);
    expect((await client.get('/v1/billing/invoices')).body).toEqual({ invoices: [] });
  });

  it('with BILLING_MODE=off there is nothing to buy: 400 says billing is off; invoices are empty', async () => {
    const { client } = await registerUser(off.app);
    const res = await client.post('/v1/billing/checkout', { ...growth, provider: 'chargebee' });
    expect([res.status, res.body.message]).toEqual([400, billingProviderMessages.billingOff]);
    expect((await client.get('/v1/billing/invoices')).body).toEqual({ invoices: [] });
  });
});

describe('billing scopes', () => {
  it('checkout needs billing:write; invoices need billing:read', async () => {
    const reader = await registerUser(ctx.app);
    await setScopes(reader.account.accountId, ['billing:read']);
    const refused = await reader.client.post('/v1/billing/checkout', { ...growth, provider: 'chargebee' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/billing:write/);
    expect((await reader.client.get('/v1/billing/invoices')).status).toBe(200);
    expect(await subscriptionsOf(reader.account.accountId)).toEqual([]);

    const nobody = await registerUser(ctx.app);
    await setScopes(nobody.account.accountId, ['people:read']);
    expect((await nobody.client.get('/v1/billing/invoices')).status).toBe(403);

    const writer = await registerUser(ctx.app);
    await setScopes(writer.account.accountId, ['billing:read', 'billing:write']);
    expect(
      (await writer.client.post('/v1/billing/checkout', { ...growth, provider: 'chargebee' })).status,
    ).toBe(200);
  });
});
