import { marketplaceMessages, messages } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { redeemAttemptLimit } from '../src/features/marketplace/marketplace.service.ts';
import { Client, createTestContext, registerUser, uniqueEmail } from './helpers.ts';
import { accountRow, codeRow, ctx, newCode, useMarketplaceContext } from './marketplace-fixtures.ts';

useMarketplaceContext();

async function countUsers(email: string) {
  const row = await ctx.services.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function countAccounts() {
  const row = await ctx.services.db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /v1/marketplace/redeem for a visitor', () => {
  it('registers the account with the code in one go: marketplace plan, active, signed in, wizard next', async () => {
    const code = await newCode(10000);
    const client = new Client(ctx.app);
    const email = uniqueEmail('deal');
    const res = await client.post('/v1/marketplace/redeem', {
      code: ` ${code.toLowerCase()} `,
      email,
      timezone: 'Europe/Paris',
    });
    expect(res.status).toBe(200);
    expect(res.body.accountCreated).toBe(true);
    expect(res.body.plan).toMatchObject({
      name: 'marketplace-growth-monthly-v1',
      peopleUpperLimit: 10000,
      price: 89.5,
    });
    expect(res.body.account).toMatchObject({ email, timezone: 'Europe/Paris', status: 'active' });
    expect(res.cookie).toBeDefined();
    const me = await client.get('/v1/accounts');
    expect(me.status).toBe(200);
    expect(me.body.accountId).toBe(res.body.account.accountId);
    expect(me.body.name).toBeNull();
    const accountId = res.body.account.accountId as number;
    expect(await accountRow(accountId)).toEqual({
      status: 'active',
      planName: 'marketplace-growth-monthly-v1',
      planPeopleUpperLimit: 10000,
      planProvider: 'marketplace',
      source: 'marketplace',
    });
    const row = await codeRow(code);
    expect(row.redeemedByAccountId).toBe(accountId);
    expect(row.redeemedAt).toBeInstanceOf(Date);
    const listed = await client.get('/v1/marketplace/redemptions');
    expect(listed.status).toBe(200);
    expect(listed.body.redemptions).toEqual([
      {
        codeHint: `…${code.slice(-4)}`,
        planName: 'marketplace-growth-monthly-v1',
        peopleUpperLimit: 10000,
        redeemedAt: row.redeemedAt!.toISOString(),
      },
    ]);
  });

  it('a code used twice: 409 with a clear message, and the second account is not created', async () => {
    const code = await newCode();
    expect(
      (await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail('first') }))
        .status,
    ).toBe(200);
    const before = await countAccounts();
    const email = uniqueEmail('second');
    const again = await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ name: 'ConflictError', message: marketplaceMessages.alreadyRedeemed });
    expect(again.cookie).toBeUndefined();
    expect(await countUsers(email)).toBe(0);
    expect(await countAccounts()).toBe(before);
  });

  it('an unknown code: 404 with a clear message, nothing created', async () => {
    const before = await countAccounts();
    const email = uniqueEmail('unknown');
    const res = await new Client(ctx.app).post('/v1/marketplace/redeem', { code: 'NO-SUCH-CODE-1', email });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(marketplaceMessages.unknownCode);
    expect(res.cookie).toBeUndefined();
    expect(await countUsers(email)).toBe(0);
    expect(await countAccounts()).toBe(before);
  });

  it('an email already registered: 409, and the code stays free for its owner', async () => {
    const { email } = await registerUser(ctx.app);
    const code = await newCode();
    const res = await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(messages.emailAlreadyRegistered);
    expect((await codeRow(code)).redeemedAt).toBeNull();
    expect(
      (await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail() })).status,
    ).toBe(200);
  });

  it.each([
    ['no code', { email: uniqueEmail() }, 'code: Invalid input: expected string, received undefined'],
    ['an empty code', { code: '  ', email: uniqueEmail() }, marketplaceMessages.missingCode],
    [
      'a code with odd characters',
      { code: "x' or 1=1 --", email: uniqueEmail() },
      marketplaceMessages.codeCharacters,
    ],
    ['no email', { code: 'SOME-CODE' }, messages.missingRegistrationEmail],
    ['an invalid email', { code: 'SOME-CODE', email: 'not-an-email' }, 'Enter a valid email address.'],
    [
      'an unknown field',
      { code: 'SOME-CODE', email: uniqueEmail(), plan: 'premium' },
      'Unrecognized key: "plan"',
    ],
    [
      'an unknown time zone',
      { code: 'SOME-CODE', email: uniqueEmail(), timezone: 'Mars/Olympus' },
      'Unknown time zone.',
    ],
  ])('answers 400 for %s and writes nothing', async (_label, body, message) => {
    const before = await countAccounts();
    const res = await new Client(ctx.app).post('/v1/marketplace/redeem', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
    expect(res.cookie).toBeUndefined();
    expect(await countAccounts()).toBe(before);
  });

  it('refuses a cross-site request', async () => {
    const code = await newCode();
    const res = await new Client(ctx.app).post(
      '/v1/marketplace/redeem',
      { code, email: uniqueEmail() },
      { origin: 'https://evil.example' },
    );
    expect(res.status).toBe(403);
    expect((await codeRow(code)).redeemedAt).toBeNull();
  });

  it(`limits an address to ${redeemAttemptLimit} attempts, so codes cannot be guessed`, async () => {
    const guesser = new Client(ctx.app);
    for (let i = 0; i < redeemAttemptLimit; i += 1) {
      const res = await guesser.post('/v1/marketplace/redeem', {
        code: `GUESS-${i}`,
        email: uniqueEmail('guess'),
      });
      expect(res.status).toBe(404);
    }
    const code = await newCode();
    const blocked = await guesser.post('/v1/marketplace/redeem', { code, email: uniqueEmail('guess') });
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toBe(messages.tooManyRequests);
    expect(blocked.headers['retry-after'] ?? blocked.body.retryAfter).toBeDefined();
    expect((await codeRow(code)).redeemedAt).toBeNull();
    // Another address is not held back.
    expect(
      (await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail() })).status,
    ).toBe(200);
  });
});

describe('with BILLING_MODE=plans', () => {
  it("the code's plan is the account's plan, marked as a marketplace one, and the picker offers the marketplace list", async () => {
    const plansCtx = await createTestContext({ BILLING_MODE: 'plans' });
    try {
      const code = await newCode(5000);
      const client = new Client(plansCtx.app);
      const res = await client.post('/v1/marketplace/redeem', { code, email: uniqueEmail('plans') });
      expect(res.status).toBe(200);
      expect(res.body.account.payment).toMatchObject({
        plan: { name: 'marketplace-growth-monthly-v1', peopleUpperLimit: 5000, price: 49.5 },
        appsumo: true,
      });
      const billing = await client.get('/v1/billing');
      expect(billing.body).toMatchObject({
        mode: 'plans',
        status: 'active',
        planProvider: 'marketplace',
        peopleUpperLimit: 5000,
      });
      const choices = await client.get('/v1/billing/plans');
      expect(choices.status).toBe(200);
      const monthlyGrowth = choices.body.groups.find(
        (group: { label: string }) => group.label === 'Monthly Growth',
      );
      expect(monthlyGrowth.plans.length).toBeGreaterThan(0);
      expect(new Set(monthlyGrowth.plans.map((plan: { name: string }) => plan.name))).toEqual(
        new Set(['marketplace-growth-monthly-v1']),
      );
    } finally {
      await plansCtx.close();
    }
  });
});
