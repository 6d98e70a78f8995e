import crypto from 'node:crypto';
import { allPlans, billingProviderMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';
import { fixture, providerEnv, stockProviders } from './billing-standins.ts';
import { chargebeeAuthHeader, startChargebeeStandIn, type ChargebeeStandIn } from './chargebee-standin.ts';
import { startPaypalStandIn, type PaypalStandIn } from './paypal-standin.ts';

let chargebee: ChargebeeStandIn;
let paypal: PaypalStandIn;
let ctx: TestContext;
let unset: TestContext;
beforeAll(async () => {
  chargebee = await startChargebeeStandIn();
  paypal = await startPaypalStandIn();
  stockProviders(chargebee, paypal, allPlans);
  ctx = await createTestContext(providerEnv(chargebee, paypal));
  const { CHARGEBEE_WEBHOOK_AUTH: _auth, ...withoutAuth } = providerEnv(chargebee, paypal);
  unset = await createTestContext(withoutAuth);
});
afterAll(async () => {
  await Promise.all([ctx.close(), unset.close()]);
  await Promise.all([chargebee.close(), paypal.close()]);
});

const hook = '/v1/hooks/billing/chargebee';
const eventId = () => `ev_${crypto.randomBytes(8).toString('hex')}`;

/** An owner who started a Chargebee checkout: the ids the webhook events will carry. */
async function checkedOut(plan = 'growth-monthly-v1', peopleUpperLimit = 2000) {
  const owner = await registerUser(ctx.app);
  const res = await owner.client.post('/v1/billing/checkout', {
    plan,
    peopleUpperLimit,
    provider: 'chargebee',
  });
  expect(res.status).toBe(200);
  const form = chargebee.form(chargebee.requests.at(-1)!);
  const values = {
    subscriptionId: form['subscription[id]']!,
    customerId: form['customer[id]']!,
    email: owner.email,
    itemPriceId: `${plan}-${peopleUpperLimit}`,
  };
  return { ...owner, values };
}

function send(body: string, headers: Record<string, string> = chargebeeAuthHeader(), app = ctx.app) {
  return new Client(app).request('POST', hook, { rawBody: body, headers, origin: null });
}

const billingOf = async (client: Client) => (await client.get('/v1/billing')).body;

describe('Chargebee webhook', () => {
  it('subscription_created sets the plan, the status and the payment method; the same event again changes nothing', async () => {
    const { client, values } = await checkedOut();
    const body = fixture('chargebee-subscription-created.json', { ...values, eventId: eventId() });
    const res = await send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      received: true,
      duplicate: false,
      outcome: 'active: growth-monthly-v1 up to 2000',
    });
    const billing = await billingOf(client);
    expect(billing).toMatchObject({
      status: 'active',
      plan: { name: 'growth-monthly-v1', peopleUpperLimit: 2000, price: 49 },
      planProvider: 'chargebee',
    });
    const account = (await client.get('/v1/accounts')).body;
    expect(account.status).toBe('active');
    expect(account.payment).toMatchObject({
      plan: { name: 'growth-monthly-v1', peopleUpperLimit: 2000, price: 49 },
      paymentMethod: 'chargebee',
    });

    const again = await send(body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true });
    expect((await billingOf(client)).planSetAt).toBe(billing.planSetAt);
  });

  it('wrong or missing credentials: 401 and nothing changes', async () => {
    const { client, values } = await checkedOut();
    const body = fixture('chargebee-subscription-created.json', { ...values, eventId: eventId() });
    for (const headers of [
      {},
      chargebeeAuthHeader('chargebee-hook:wrong'),
      { authorization: 'Basic !!!' },
      { authorization: `Bearer ${'x'.repeat(20)}` },
    ]) {
      const res = await send(body, headers);
      expect([JSON.stringify(headers), res.status]).toEqual([JSON.stringify(headers), 401]);
    }
    expect((await billingOf(client)).plan).toBeNull();
    // The refused deliveries did not use up the event: the real one still applies.
    expect((await send(body)).body.outcome).toMatch(/^active/);
  });

  it('without CHARGEBEE_WEBHOOK_AUTH the webhook answers 403', async () => {
    const res = await send(
      fixture('chargebee-customer-changed.json', {
        eventId: eventId(),
        customerId: 'c',
        email: 'a@example.com',
      }),
      chargebeeAuthHeader(),
      unset.app,
    );
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/CHARGEBEE_WEBHOOK_AUTH/);
  });

  it('a body that is not a Chargebee event is 400', async () => {
    for (const body of [
      'not json',
      '{}',
      JSON.stringify({ id: 'ev_1', event_type: 'subscription_created' }),
    ]) {
      expect((await send(body)).status).toBe(400);
    }
  });

  it('an event for a subscription Herald does not know, or of a kind Herald ignores, is 200 and changes nothing', async () => {
    const unknown = fixture('chargebee-subscription-created.json', {
      eventId: eventId(),
      subscriptionId: 'sub_elsewhere',
      customerId: 'cust_elsewhere',
      email: 'x@example.com',
      itemPriceId: 'growth-monthly-v1-2000',
    });
    expect((await send(unknown)).body).toEqual({
      received: true,
      duplicate: false,
      outcome: 'ignored: unknown subscription',
    });
    const other = fixture('chargebee-customer-changed.json', {
      eventId: eventId(),
      customerId: 'herald-1',
      email: 'x@example.com',
    });
    expect((await send(other)).body.outcome).toBe('ignored: not an event Herald acts on');
    const odd = JSON.stringify({
      id: eventId(),
      event_type: 'subscription_created',
      content: { subscription: { id: 42 }, customer: 'c' },
    });
    expect((await send(odd)).body).toMatchObject({
      received: true,
      outcome: 'ignored: not an event Herald acts on',
    });
  });

  it('an unknown plan (item price outside the naming rule or the catalogue) is 200, logged, and changes nothing', async () => {
    const { client, values } = await checkedOut();
    for (const itemPriceId of ['enterprise-v9-2000', 'growth-monthly', 'growth-monthly-v1-2500']) {
      const res = await send(
        fixture('chargebee-subscription-created.json', { ...values, itemPriceId, eventId: eventId() }),
      );
      expect([itemPriceId, res.status, res.body.outcome]).toEqual([
        itemPriceId,
        200,
        'refused: Unknown plan',
      ]);
    }
    expect(await billingOf(client)).toMatchObject({ plan: null, status: 'trial' });
  });

  it('subscription_changed moves the plan; a change below the people count is refused and the plan stays', async () => {
    const { client, account, values } = await checkedOut('growth-monthly-v1', 5000);
    await send(fixture('chargebee-subscription-created.json', { ...values, eventId: eventId() }));
    await sql`insert into people (account_id, email) select ${account.accountId}, 'p' || g || '@example.com' from generate_series(1, 2500) g`.execute(
      ctx.services.db,
    );
    const down = await send(
      fixture('chargebee-subscription-changed.json', {
        ...values,
        itemPriceId: 'growth-monthly-v1-2000',
        eventId: eventId(),
      }),
    );
    expect(down.status).toBe(200);
    expect(down.body.outcome).toMatch(/^refused: This account has 2,500 people/);
    expect((await billingOf(client)).plan).toMatchObject({
      name: 'growth-monthly-v1',
      peopleUpperLimit: 5000,
    });
    const up = await send(
      fixture('chargebee-subscription-changed.json', {
        ...values,
        itemPriceId: 'premium-monthly-v3-10000',
        eventId: eventId(),
      }),
    );
    expect(up.body.outcome).toBe('active: premium-monthly-v3 up to 10000');
    expect((await billingOf(client)).plan).toMatchObject({
      name: 'premium-monthly-v3',
      peopleUpperLimit: 10000,
      price: 199,
    });
  });

  it('subscription_cancelled cancels the account; payment_succeeded is recorded once', async () => {
    const { client, account, values } = await checkedOut();
    await send(fixture('chargebee-subscription-created.json', { ...values, eventId: eventId() }));
    const paid = fixture('chargebee-payment-succeeded.json', {
      ...values,
      eventId: eventId(),
      transactionId: 'txn_0001',
      invoiceId: 'inv_0001',
    });
    expect((await send(paid)).body.outcome).toBe('payment recorded: 49.00 USD');
    expect((await send(paid)).body.duplicate).toBe(true);
    // The same payment in another event (a resend under a new id) is not recorded twice either.
    expect((await send(paid.replace(/"id": "ev_[0-9a-f]+"/, `"id": "${eventId()}"`))).body.outcome).toBe(
      'payment already recorded',
    );
    const row = await ctx.services.db
      .selectFrom('billingSubscriptions')
      .selectAll()
      .where('accountId', '=', account.accountId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'active',
      lastPaymentId: 'txn_0001',
      lastPaymentAmount: '49.00',
      lastPaymentCurrency: 'USD',
    });

    const res = await send(
      fixture('chargebee-subscription-cancelled.json', { ...values, eventId: eventId() }),
    );
    expect(res.body.outcome).toBe('canceled: growth-monthly-v1');
    expect(await billingOf(client)).toMatchObject({
      status: 'canceled',
      plan: { name: 'growth-monthly-v1' },
      planProvider: 'chargebee',
    });
    expect((await client.get('/v1/accounts')).body.status).toBe('canceled');
  });

  it('ending an old subscription does not end the plan a newer one gave', async () => {
    const { client, values: first } = await checkedOut();
    await send(fixture('chargebee-subscription-created.json', { ...first, eventId: eventId() }));
    // A second subscription for the same customer, made in Chargebee's own screens.
    const second = { ...first, subscriptionId: 'made-by-support-2', itemPriceId: 'premium-monthly-v3-2000' };
    await send(fixture('chargebee-subscription-created.json', { ...second, eventId: eventId() }));
    const res = await send(
      fixture('chargebee-subscription-cancelled.json', { ...first, eventId: eventId() }),
    );
    expect(res.body.outcome).toBe('canceled: the account keeps its current plan');
    expect(await billingOf(client)).toMatchObject({ status: 'active', plan: { name: 'premium-monthly-v3' } });
  });

  it("a subscription made in Chargebee's own screens for a Herald customer is adopted", async () => {
    const { client, values } = await checkedOut();
    const res = await send(
      fixture('chargebee-subscription-created.json', {
        ...values,
        subscriptionId: 'made-by-support-1',
        itemPriceId: 'growth-annual-v1-10000',
        eventId: eventId(),
      }),
    );
    expect(res.body.outcome).toBe('active: growth-annual-v1 up to 10000');
    expect((await billingOf(client)).plan).toMatchObject({
      name: 'growth-annual-v1',
      peopleUpperLimit: 10000,
    });
  });
});

describe('changing a paid plan (Chargebee)', () => {
  it("a paying account's new checkout changes its subscription in place; the same plan or the other provider is refused", async () => {
    const { client, account, values } = await checkedOut();
    await send(fixture('chargebee-subscription-created.json', { ...values, eventId: eventId() }));
    const same = await client.post('/v1/billing/checkout', {
      plan: 'growth-monthly-v1',
      peopleUpperLimit: 2000,
      provider: 'chargebee',
    });
    expect([same.status, same.body.message]).toEqual([400, billingProviderMessages.alreadyOnPlan]);
    const other = await client.post('/v1/billing/checkout', {
      plan: 'paypal-monthly-v1',
      peopleUpperLimit: 5000,
      provider: 'paypal',
    });
    expect([other.status, other.body.message]).toEqual([409, billingProviderMessages.paysByCard]);

    const res = await client.post('/v1/billing/checkout', {
      plan: 'premium-monthly-v3',
      peopleUpperLimit: 5000,
      provider: 'chargebee',
    });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(/^https:\/\/herald-test\.chargebee\.com\/pages\/v3\//);
    const sent = chargebee.requests.at(-1)!;
    expect(sent.path).toBe('/api/v2/hosted_pages/checkout_existing_for_items');
    expect(chargebee.form(sent)).toMatchObject({
      'subscription[id]': values.subscriptionId,
      'subscription_items[item_price_id][0]': 'premium-monthly-v3-5000',
      replace_items_list: 'true',
    });
    const rows = await ctx.services.db
      .selectFrom('billingSubscriptions')
      .select('subscriptionId')
      .where('accountId', '=', account.accountId)
      .execute();
    expect(rows).toEqual([{ subscriptionId: values.subscriptionId }]);
    // The plan moves when Chargebee says the subscription changed.
    expect((await billingOf(client)).plan).toMatchObject({ name: 'growth-monthly-v1' });
    await send(
      fixture('chargebee-subscription-changed.json', {
        ...values,
        itemPriceId: 'premium-monthly-v3-5000',
        eventId: eventId(),
      }),
    );
    expect((await billingOf(client)).plan).toMatchObject({
      name: 'premium-monthly-v3',
      peopleUpperLimit: 5000,
    });
  });
});

describe('GET /v1/billing/invoices (Chargebee)', () => {
  it("lists the customer's invoices from Chargebee in dollars, newest first; empty before any subscription starts", async () => {
    const { client, values } = await checkedOut();
    chargebee.invoices.set(values.customerId, [
      {
        id: 'inv_0001',
        customer_id: values.customerId,
        subscription_id: values.subscriptionId,
        status: 'paid',
        date: 1764129600,
        total: 4900,
        amount_paid: 4900,
        currency_code: 'USD',
        object: 'invoice',
      },
      {
        id: 'inv_0002',
        customer_id: values.customerId,
        subscription_id: values.subscriptionId,
        status: 'payment_due',
        date: 1766808000,
        total: 4950,
        amount_paid: 0,
        currency_code: 'USD',
        object: 'invoice',
      },
    ]);
    expect((await client.get('/v1/billing/invoices')).body).toEqual({ invoices: [] });
    await send(fixture('chargebee-subscription-created.json', { ...values, eventId: eventId() }));
    const res = await client.get('/v1/billing/invoices');
    expect(res.status).toBe(200);
    expect(res.body.invoices).toEqual([
      {
        id: 'inv_0002',
        provider: 'chargebee',
        date: '2025-12-27T04:00:00.000Z',
        amount: 49.5,
        currency: 'USD',
        status: 'payment_due',
        url: null,
      },
      {
        id: 'inv_0001',
        provider: 'chargebee',
        date: '2025-11-26T04:00:00.000Z',
        amount: 49,
        currency: 'USD',
        status: 'paid',
        url: null,
      },
    ]);
    chargebee.failNext(500);
    const down = await client.get('/v1/billing/invoices');
    expect(down.status).toBe(503);
  });
});
