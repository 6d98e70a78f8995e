import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { allPlans, billingProviderMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';
import { fixture, fixturesDir, providerEnv, stockProviders } from './billing-standins.ts';
import { startChargebeeStandIn, type ChargebeeStandIn } from './chargebee-standin.ts';
import { signPaypalWebhook, startPaypalStandIn, type PaypalStandIn } from './paypal-standin.ts';

/** The PayPal event recorded with its signature headers (made with fixtures/billing/paypal-test-key.pem). */
const recorded = JSON.parse(
  fs.readFileSync(path.join(fixturesDir, 'paypal-recorded-activated.json'), 'utf8'),
) as { webhookId: string; headers: Record<string, string>; body: string };

let chargebee: ChargebeeStandIn;
let paypal: PaypalStandIn;
let ctx: TestContext;
let unset: TestContext;
beforeAll(async () => {
  chargebee = await startChargebeeStandIn();
  paypal = await startPaypalStandIn({ webhookId: recorded.webhookId });
  stockProviders(chargebee, paypal, allPlans);
  // The recorded event names PayPal's id of the plan sold as paypal-monthly-v1-2000.
  paypal.plans.find((p) => p.name === 'paypal-monthly-v1-2000')!.id = 'P-5ML4271244454362WXNWU5NQ';
  ctx = await createTestContext(providerEnv(chargebee, paypal));
  const { PAYPAL_WEBHOOK_ID: _id, ...withoutWebhookId } = providerEnv(chargebee, paypal);
  unset = await createTestContext(withoutWebhookId);
});
afterAll(async () => {
  await Promise.all([ctx.close(), unset.close()]);
  await Promise.all([chargebee.close(), paypal.close()]);
});

const hook = '/v1/hooks/billing/paypal';
const eventId = () => `WH-${crypto.randomBytes(10).toString('hex').toUpperCase()}`;
const planIdOf = (name: string) => paypal.plans.find((p) => p.name === name)!.id;

async function checkedOut(plan = 'paypal-monthly-v1', peopleUpperLimit = 2000) {
  const owner = await registerUser(ctx.app);
  const res = await owner.client.post('/v1/billing/checkout', { plan, peopleUpperLimit, provider: 'paypal' });
  expect(res.status).toBe(200);
  const row = await ctx.services.db
    .selectFrom('billingSubscriptions')
    .select('subscriptionId')
    .where('accountId', '=', owner.account.accountId)
    .executeTakeFirstOrThrow();
  const values = {
    subscriptionId: row.subscriptionId,
    planId: planIdOf(`${plan}-${peopleUpperLimit}`),
    accountId: owner.account.accountId,
    email: owner.email,
  };
  return { ...owner, values };
}

/** Deliver a body signed as PayPal signs it (or with the headers given). */
function send(
  body: string,
  headers: Record<string, string> = signPaypalWebhook(body, paypal.webhookId),
  app = ctx.app,
) {
  return new Client(app).request('POST', hook, { rawBody: body, headers, origin: null });
}

const billingOf = async (client: Client) => (await client.get('/v1/billing')).body;

describe('PayPal webhook', () => {
  it('the recorded, signed BILLING.SUBSCRIPTION.ACTIVATED event activates the plan; replayed, it changes nothing', async () => {
    paypal.nextSubscriptionIds.push('I-RECORDED8NJ4CV');
    const { client } = await checkedOut();
    const res = await send(recorded.body, recorded.headers);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      received: true,
      duplicate: false,
      outcome: 'active: paypal-monthly-v1 up to 2000',
    });
    const billing = await billingOf(client);
    expect(billing).toMatchObject({
      status: 'active',
      plan: { name: 'paypal-monthly-v1', peopleUpperLimit: 2000, price: 49 },
      planProvider: 'paypal',
    });
    expect((await client.get('/v1/accounts')).body.payment).toMatchObject({
      paymentMethod: 'paypal',
      plan: { name: 'paypal-monthly-v1' },
    });
    // Herald asked PayPal to verify the event exactly as received, with its webhook id.
    const verify = paypal.requests
      .filter((r) => r.path === '/v1/notifications/verify-webhook-signature')
      .at(-1)!;
    expect(verify.body.endsWith(`"webhook_event":${recorded.body}}`)).toBe(true);
    expect(JSON.parse(verify.body)).toMatchObject({
      auth_algo: 'SHA256withRSA',
      webhook_id: recorded.webhookId,
      transmission_id: recorded.headers['paypal-transmission-id'],
    });

    const again = await send(recorded.body, recorded.headers);
    expect(again.body).toMatchObject({ duplicate: true });
    expect((await billingOf(client)).planSetAt).toBe(billing.planSetAt);
  });

  it('a bad signature (a changed body, another webhook, missing headers): 401 and nothing changes', async () => {
    const { client, values } = await checkedOut();
    const body = fixture('paypal-subscription-activated.json', { ...values, eventId: eventId() });
    const signed = signPaypalWebhook(body, paypal.webhookId);
    const { 'paypal-transmission-sig': _sig, ...unsigned } = signed;
    for (const [what, text, headers] of [
      [
        'changed body',
        body.replace('paypal-monthly', 'paypal-monthly').replace('"quantity": "1"', '"quantity": "9"'),
        signed,
      ],
      ['another webhook', body, signPaypalWebhook(body, 'WH-SOMEONE-ELSE')],
      ['no signature', body, unsigned],
      ['no headers', body, {}],
      ['not JSON', 'not json', signPaypalWebhook('not json', paypal.webhookId)],
    ] as const) {
      const res = await send(text, headers);
      expect([what, res.status]).toEqual([what, 401]);
    }
    expect(await billingOf(client)).toMatchObject({ plan: null, status: 'trial' });
    expect((await send(body, signed)).body.outcome).toMatch(/^active/);
  });

  it('without PAYPAL_WEBHOOK_ID the webhook answers 403', async () => {
    const body = fixture('paypal-subscription-activated.json', {
      subscriptionId: 'I-X',
      planId: 'P-X',
      accountId: 1,
      email: 'a@example.com',
      eventId: eventId(),
    });
    const res = await send(body, signPaypalWebhook(body, paypal.webhookId), unset.app);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/PAYPAL_WEBHOOK_ID/);
  });

  it("PayPal's verification down: 503 so PayPal delivers again; nothing changes", async () => {
    const { client, values } = await checkedOut();
    const body = fixture('paypal-subscription-activated.json', { ...values, eventId: eventId() });
    paypal.failNext(503);
    const res = await send(body);
    expect([res.status, res.body.message]).toEqual([503, billingProviderMessages.providerUnavailable]);
    expect((await billingOf(client)).plan).toBeNull();
    expect((await send(body)).status).toBe(200);
  });

  it('an event for an unknown subscription, or one Herald does not act on, is 200 and changes nothing', async () => {
    const unknown = fixture('paypal-subscription-activated.json', {
      subscriptionId: 'I-NOTHERALD',
      planId: 'P-X',
      accountId: 1,
      email: 'a@example.com',
      eventId: eventId(),
    });
    expect((await send(unknown)).body.outcome).toBe('ignored: unknown subscription');
    const other = JSON.stringify({
      id: eventId(),
      event_type: 'CUSTOMER.DISPUTE.CREATED',
      resource_type: 'dispute',
      resource: { id: 'PP-D-1' },
    });
    expect((await send(other)).body.outcome).toBe('ignored: not an event Herald acts on');
    const bare = JSON.stringify({
      id: eventId(),
      event_type: 'BILLING.SUBSCRIPTION.ACTIVATED',
      resource: {},
    });
    expect((await send(bare)).body.outcome).toBe('ignored: not an event Herald acts on');
    for (const body of ['{}', JSON.stringify({ id: eventId(), event_type: 'PAYMENT.SALE.COMPLETED' })])
      expect((await send(body)).status).toBe(400);
  });

  it('BILLING.SUBSCRIPTION.UPDATED to another PayPal plan moves the plan; to a plan outside the naming rule it is refused', async () => {
    const { client, values } = await checkedOut();
    await send(fixture('paypal-subscription-activated.json', { ...values, eventId: eventId() }));
    const bigger = await send(
      fixture('paypal-subscription-updated.json', {
        ...values,
        planId: planIdOf('paypal-annual-v1-10000'),
        eventId: eventId(),
      }),
    );
    expect(bigger.body.outcome).toBe('active: paypal-annual-v1 up to 10000');
    expect((await billingOf(client)).plan).toMatchObject({
      name: 'paypal-annual-v1',
      peopleUpperLimit: 10000,
    });
    paypal.plans.push({ id: 'P-HANDMADE', name: 'Summer offer', status: 'ACTIVE' });
    const odd = await send(
      fixture('paypal-subscription-updated.json', { ...values, planId: 'P-HANDMADE', eventId: eventId() }),
    );
    expect([odd.status, odd.body.outcome]).toEqual([200, 'refused: Unknown plan']);
    expect((await billingOf(client)).plan).toMatchObject({ name: 'paypal-annual-v1' });
  });

  it('PAYMENT.SALE.COMPLETED is recorded once; BILLING.SUBSCRIPTION.CANCELLED cancels the account', async () => {
    const { client, account, values } = await checkedOut();
    await send(fixture('paypal-subscription-activated.json', { ...values, eventId: eventId() }));
    const sale = fixture('paypal-payment-sale-completed.json', {
      ...values,
      saleId: '80021663DE681814L',
      eventId: eventId(),
    });
    expect((await send(sale)).body.outcome).toBe('payment recorded: 49.00 USD');
    expect((await send(sale)).body.duplicate).toBe(true);
    const row = await ctx.services.db
      .selectFrom('billingSubscriptions')
      .selectAll()
      .where('accountId', '=', account.accountId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'active',
      lastPaymentId: '80021663DE681814L',
      lastPaymentAmount: '49.00',
      lastPaymentCurrency: 'USD',
    });

    const res = await send(fixture('paypal-subscription-cancelled.json', { ...values, eventId: eventId() }));
    expect(res.body.outcome).toBe('canceled: paypal-monthly-v1');
    expect(await billingOf(client)).toMatchObject({ status: 'canceled', planProvider: 'paypal' });
  });
});

describe('changing a paid plan (PayPal)', () => {
  it("a paying account's new checkout revises its PayPal subscription; paying by card instead is refused", async () => {
    const { client, account, values } = await checkedOut();
    await send(fixture('paypal-subscription-activated.json', { ...values, eventId: eventId() }));
    const card = await client.post('/v1/billing/checkout', {
      plan: 'growth-monthly-v1',
      peopleUpperLimit: 5000,
      provider: 'chargebee',
    });
    expect([card.status, card.body.message]).toEqual([409, billingProviderMessages.paysByPaypal]);
    const res = await client.post('/v1/billing/checkout', {
      plan: 'paypal-annual-v1',
      peopleUpperLimit: 5000,
      provider: 'paypal',
    });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(
      /^https:\/\/www\.sandbox\.paypal\.com\/webapps\/billing\/subscriptions\/update\?ba_token=BA-/,
    );
    const revise = paypal.requests.at(-1)!;
    expect(revise.path).toBe(`/v1/billing/subscriptions/${values.subscriptionId}/revise`);
    expect(JSON.parse(revise.body)).toMatchObject({ plan_id: planIdOf('paypal-annual-v1-5000') });
    const rows = await ctx.services.db
      .selectFrom('billingSubscriptions')
      .select('subscriptionId')
      .where('accountId', '=', account.accountId)
      .execute();
    expect(rows).toHaveLength(1);
  });
});

describe('GET /v1/billing/invoices (PayPal)', () => {
  it("lists the subscription's PayPal transactions, newest first", async () => {
    const { client, values } = await checkedOut();
    paypal.transactions.set(values.subscriptionId, [
      {
        id: '80021663DE681814L',
        status: 'COMPLETED',
        amount_with_breakdown: {
          gross_amount: { currency_code: 'USD', value: '49.00' },
          fee_amount: { currency_code: 'USD', value: '1.72' },
          net_amount: { currency_code: 'USD', value: '47.28' },
        },
        payer_name: { given_name: 'Ada', surname: 'Lovelace' },
        payer_email: values.email,
        time: '2026-10-26T04:00:00Z',
      },
      {
        id: '9NT68577TR8431437',
        status: 'REFUNDED',
        amount_with_breakdown: { gross_amount: { currency_code: 'USD', value: '49.00' } },
        time: '2026-11-26T04:00:00Z',
      },
    ]);
    expect((await client.get('/v1/billing/invoices')).body).toEqual({ invoices: [] });
    await send(fixture('paypal-subscription-activated.json', { ...values, eventId: eventId() }));
    const res = await client.get('/v1/billing/invoices');
    expect(res.body.invoices).toEqual([
      {
        id: '9NT68577TR8431437',
        provider: 'paypal',
        date: '2026-11-26T04:00:00.000Z',
        amount: 49,
        currency: 'USD',
        status: 'refunded',
        url: null,
      },
      {
        id: '80021663DE681814L',
        provider: 'paypal',
        date: '2026-10-26T04:00:00.000Z',
        amount: 49,
        currency: 'USD',
        status: 'completed',
        url: null,
      },
    ]);
    const call = paypal.requests.filter((r) => r.path.endsWith('/transactions')).at(-1)!;
    expect(call.path).toBe(`/v1/billing/subscriptions/${values.subscriptionId}/transactions`);
  });
});
