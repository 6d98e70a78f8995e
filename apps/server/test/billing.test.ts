import { planGroupLabels, scopeIds } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignPlan } from '../src/features/billing/plan-assignment.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';
import { until } from './until.ts';

let plans: TestContext;
let off: TestContext;
beforeAll(async () => {
  plans = await createTestContext({ BILLING_MODE: 'plans', SUPPORT_EMAIL: 'billing@herald.example' });
  off = await createTestContext();
});
afterAll(async () => {
  await plans.close();
  await off.close();
});

const day = 24 * 3600 * 1000;

async function addPeople(ctx: TestContext, accountId: number, n: number) {
  await sql`insert into people (account_id, email) select ${accountId}, 'p' || g || '-' || ${accountId} || '@example.com' from generate_series(1, ${n}) g`.execute(
    ctx.services.db,
  );
}

async function setScopes(ctx: TestContext, accountId: number, enabled: string[]) {
  const scopes = scopeIds.map((id) => ({ id, enabled: enabled.includes(id) }));
  await sql`update team_members set is_owner = false, scopes = ${JSON.stringify(scopes)}::jsonb where account_id = ${accountId}`.execute(
    ctx.services.db,
  );
}

describe('BILLING_MODE=plans', () => {
  it('a new account is on its 14-day trial with no plan; the owner may change the plan; no provider is configured', async () => {
    const { client, account } = await registerUser(plans.app);
    expect(account.status).toBe('trial');
    expect(Math.round((Date.parse(account.trialEndsAt) - Date.parse(account.createdAt)) / day)).toBe(14);
    expect(account.payment).toEqual({ plan: null, paymentMethod: null, appsumo: false });
    const res = await client.get('/v1/billing');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      mode: 'plans',
      status: 'trial',
      trialEndsAt: account.trialEndsAt,
      plan: null,
      planProvider: null,
      peopleCount: 0,
      peopleUpperLimit: null,
      usage: 'ok',
      providers: { chargebee: false, paypal: false },
      canChangePlan: true,
      supportEmail: 'billing@herald.example',
    });
  });

  it('GET /v1/billing/plans gives the four groups of the dialog with the spec labels, every band above the current limit', async () => {
    const { client } = await registerUser(plans.app);
    const res = await client.get('/v1/billing/plans');
    expect(res.status).toBe(200);
    expect(res.body.groups.map((g: { label: string }) => g.label)).toEqual([...planGroupLabels]);
    const [monthlyGrowth, monthlyPremium, annualGrowth, annualPremium] = res.body.groups;
    expect(monthlyGrowth.plans).toHaveLength(15);
    expect(monthlyGrowth.plans[0]).toMatchObject({
      name: 'growth-monthly-v1',
      peopleUpperLimit: 2000,
      price: 49,
      label: '0 - 2,000 People: $49 per month',
    });
    expect(monthlyPremium.plans.at(-1)).toMatchObject({
      name: 'premium-monthly-v3',
      peopleUpperLimit: 150000,
      label: '100,001 - 150,000 People: $1,199 per month',
    });
    expect(annualGrowth.plans[1]).toMatchObject({
      name: 'growth-annual-v1',
      price: 988,
      label: '2,001 - 5,000 People: $82.33 per month (billed yearly) - 2 Months Free!',
    });
    expect(annualPremium.plans).toHaveLength(12);
  });

  it('after a plan is assigned the picker offers only larger plans, and the account shows the plan', async () => {
    const { client, account } = await registerUser(plans.app);
    await addPeople(plans, account.accountId, 3);
    const result = await assignPlan(plans.services.db, account.accountId, {
      planName: 'growth-monthly-v1',
      peopleUpperLimit: 10000,
      provider: 'operator',
    });
    expect(result).toMatchObject({ changed: true, status: 'active' });
    const billing = (await client.get('/v1/billing')).body;
    expect(billing).toMatchObject({
      status: 'active',
      plan: { name: 'growth-monthly-v1', peopleUpperLimit: 10000, price: 179 },
      planProvider: 'operator',
      peopleCount: 3,
      peopleUpperLimit: 10000,
      usage: 'ok',
    });
    expect(typeof billing.planSetAt).toBe('string');
    const me = (await client.get('/v1/accounts')).body;
    expect(me.status).toBe('active');
    expect(me.payment).toEqual({
      plan: expect.objectContaining({ name: 'growth-monthly-v1', price: 179 }),
      paymentMethod: null,
      appsumo: false,
    });
    const groups = (await client.get('/v1/billing/plans')).body.groups;
    for (const group of groups)
      for (const plan of group.plans) expect(plan.peopleUpperLimit).toBeGreaterThan(10000);
    expect(groups[0].plans[0].label).toBe('10,001 - 15,000 People: $249 per month');
  });

  it('after a cancellation every plan that holds the people is offered again, the old band included', async () => {
    const { client, account } = await registerUser(plans.app);
    await assignPlan(plans.services.db, account.accountId, {
      planName: 'growth-monthly-v1',
      peopleUpperLimit: 5000,
      provider: 'paypal',
      status: 'canceled',
    });
    expect((await client.get('/v1/accounts')).body.status).toBe('canceled');
    const [monthly] = (await client.get('/v1/billing/plans')).body.groups;
    expect(monthly.plans[0]).toMatchObject({ name: 'growth-monthly-v1', peopleUpperLimit: 2000 });
  });

  it('a marketplace account is offered the marketplace list at half price, with the discount note', async () => {
    const { client, account } = await registerUser(plans.app);
    await assignPlan(plans.services.db, account.accountId, {
      planName: 'marketplace-growth-monthly-v1',
      peopleUpperLimit: 2000,
      provider: 'marketplace',
    });
    expect((await client.get('/v1/accounts')).body.payment.appsumo).toBe(true);
    const [monthly] = (await client.get('/v1/billing/plans')).body.groups;
    expect(monthly.plans[0]).toMatchObject({
      name: 'marketplace-growth-monthly-v1',
      peopleUpperLimit: 5000,
      price: 49.5,
    });
    expect(monthly.plans[0].label).toBe(
      '2,001 - 5,000 People: $49.50 per month (marketplace discount: half price)',
    );
  });

  it('the picker leaves out plans smaller than the people count', async () => {
    const { client, account } = await registerUser(plans.app);
    await addPeople(plans, account.accountId, 2500);
    const [monthly] = (await client.get('/v1/billing/plans')).body.groups;
    expect(monthly.plans[0].peopleUpperLimit).toBe(5000);
  });

  it('a trial whose end passed reads as trialExpired at once; the sweep writes it down', async () => {
    const { client, account } = await registerUser(plans.app);
    await sql`update accounts set trial_ends_at = now() - interval '1 minute' where id = ${account.accountId}`.execute(
      plans.services.db,
    );
    expect((await client.get('/v1/accounts')).body.status).toBe('trialExpired');
    expect((await client.get('/v1/billing')).body.status).toBe('trialExpired');
    const stored = () =>
      plans.services.db
        .selectFrom('accounts')
        .select('status')
        .where('id', '=', account.accountId)
        .executeTakeFirstOrThrow();
    expect((await stored()).status).toBe('trial');
    const { runBillingSweep } = await import('../src/features/billing/billing.jobs.ts');
    expect((await runBillingSweep(plans.services)).expired).toContain(account.accountId);
    expect((await stored()).status).toBe('trialExpired');
    // Choosing a plan ends the expired state.
    await assignPlan(plans.services.db, account.accountId, {
      planName: 'premium-annual-v3',
      peopleUpperLimit: 2000,
      provider: 'operator',
    });
    expect((await client.get('/v1/accounts')).body.status).toBe('active');
  });

  it('the billing-sweep job runs in the worker and expires an ended trial', async () => {
    const { account } = await registerUser(plans.app);
    await sql`update accounts set trial_ends_at = now() - interval '1 day' where id = ${account.accountId}`.execute(
      plans.services.db,
    );
    await plans.startWorker();
    await sql`select graphile_worker.add_job('billing-sweep', '{}'::json)`.execute(plans.services.db);
    const status = await until(
      async () => {
        const now = (
          await plans.services.db
            .selectFrom('accounts')
            .select('status')
            .where('id', '=', account.accountId)
            .executeTakeFirstOrThrow()
        ).status;
        return now !== 'trial' && now;
      },
      { timeout: 10_000, message: 'the trial ended by the sweep' },
    );
    expect(status).toBe('trialExpired');
  });

  it('needs billing:read to look; billing:write decides canChangePlan', async () => {
    const { client, account } = await registerUser(plans.app);
    await setScopes(plans, account.accountId, ['billing:read']);
    expect((await client.get('/v1/billing')).body.canChangePlan).toBe(false);
    expect((await client.get('/v1/billing/plans')).status).toBe(200);
    await setScopes(plans, account.accountId, ['billing:read', 'billing:write']);
    expect((await client.get('/v1/billing')).body.canChangePlan).toBe(true);
    await setScopes(plans, account.accountId, ['people:read']);
    for (const url of ['/v1/billing', '/v1/billing/plans']) {
      const res = await client.get(url);
      expect(res.status, url).toBe(403);
      expect(res.body.message, url).toContain('billing:read');
    }
  });

  it('signed out: 401', async () => {
    const { Client } = await import('./helpers.ts');
    expect((await new Client(plans.app).get('/v1/billing')).status).toBe(401);
    expect((await new Client(plans.app).get('/v1/billing/plans')).status).toBe(401);
  });
});

describe('BILLING_MODE=off (the default)', () => {
  it('no trial expiry, no payment, every account unlimited; the plan list is refused with a clear message', async () => {
    const { client, account } = await registerUser(off.app);
    expect(account.payment).toBeNull();
    await sql`update accounts set trial_ends_at = now() - interval '30 days' where id = ${account.accountId}`.execute(
      off.services.db,
    );
    await addPeople(off, account.accountId, 5);
    expect((await client.get('/v1/accounts')).body.status).toBe('trial');
    const billing = await client.get('/v1/billing');
    expect(billing.status).toBe(200);
    expect(billing.body).toMatchObject({
      mode: 'off',
      status: 'trial',
      plan: null,
      peopleCount: 5,
      peopleUpperLimit: null,
      usage: 'ok',
      canChangePlan: false,
      providers: { chargebee: false, paypal: false },
    });
    const choices = await client.get('/v1/billing/plans');
    expect(choices.status).toBe(404);
    expect(choices.body.message).toBe('Billing is off on this server: every account is unlimited.');
    const { runBillingSweep } = await import('../src/features/billing/billing.jobs.ts');
    expect((await runBillingSweep(off.services)).expired).toEqual([]);
    const stored = await off.services.db
      .selectFrom('accounts')
      .select('status')
      .where('id', '=', account.accountId)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe('trial');
  });

  it('a plan recorded while billing was on is not shown and sets no limit', async () => {
    const { client, account } = await registerUser(off.app);
    await assignPlan(off.services.db, account.accountId, {
      planName: 'growth-monthly-v1',
      peopleUpperLimit: 2000,
      provider: 'operator',
    });
    await addPeople(off, account.accountId, 2100);
    expect((await client.get('/v1/billing')).body).toMatchObject({
      plan: null,
      peopleUpperLimit: null,
      usage: 'ok',
      peopleCount: 2100,
    });
    expect((await client.get('/v1/accounts')).body.payment).toBeNull();
  });
});
