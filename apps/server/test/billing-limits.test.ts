import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBillingSweep } from '../src/features/billing/billing.jobs.ts';
import { assignPlan } from '../src/features/billing/plan-assignment.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ BILLING_MODE: 'plans' });
});
afterAll(async () => {
  await ctx.close();
});

async function addPeople(accountId: number, n: number, from = 1) {
  await sql`insert into people (account_id, email) select ${accountId}, 'p' || g || '@example.com' from generate_series(${from}::int, ${from + n - 1}::int) g`.execute(
    ctx.services.db,
  );
}
const row = (accountId: number) =>
  ctx.services.db
    .selectFrom('accounts')
    .select(['status', 'planName', 'planPeopleUpperLimit', 'planProvider', 'planSetAt', 'planPrice'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();

describe('assignPlan', () => {
  it('refuses an unknown plan or band with 400 "Unknown plan" and changes nothing', async () => {
    const { account } = await registerUser(ctx.app);
    for (const [planName, limit] of [
      ['growth-monthly-v9', 2000],
      ['growth-monthly-v1', 3000],
      ['premium-monthly-v3', 200000],
    ] as const) {
      await expect(
        assignPlan(ctx.services.db, account.accountId, {
          planName,
          peopleUpperLimit: limit,
          provider: 'operator',
        }),
      ).rejects.toMatchObject({ statusCode: 400, message: 'Unknown plan' });
    }
    expect(await row(account.accountId)).toMatchObject({ status: 'trial', planName: null });
  });

  it('refuses a plan below the people count (422, clear message), keeping the current plan', async () => {
    const { account } = await registerUser(ctx.app);
    await addPeople(account.accountId, 2001);
    await assignPlan(ctx.services.db, account.accountId, {
      planName: 'growth-monthly-v1',
      peopleUpperLimit: 5000,
      provider: 'chargebee',
    });
    const before = await row(account.accountId);
    await expect(
      assignPlan(ctx.services.db, account.accountId, {
        planName: 'growth-monthly-v1',
        peopleUpperLimit: 2000,
        provider: 'chargebee',
      }),
    ).rejects.toMatchObject({
      statusCode: 422,
      message:
        'This account has 2,001 people, more than the 2,000 this plan allows. Choose a larger plan, or archive people first.',
    });
    expect(await row(account.accountId)).toEqual(before);
  });

  it('is idempotent: the same assignment writes nothing; a change of provider or status does', async () => {
    const { account } = await registerUser(ctx.app);
    const first = await assignPlan(ctx.services.db, account.accountId, {
      planName: 'growth-annual-v1',
      peopleUpperLimit: 15000,
      provider: 'paypal',
    });
    expect(first).toMatchObject({ changed: true, status: 'active', plan: { price: 2488, period: 'year' } });
    const before = await row(account.accountId);
    expect(before).toMatchObject({ planPrice: '2488.00', planProvider: 'paypal', status: 'active' });
    const again = await assignPlan(ctx.services.db, account.accountId, {
      planName: 'growth-annual-v1',
      peopleUpperLimit: 15000,
      provider: 'paypal',
    });
    expect(again.changed).toBe(false);
    expect(await row(account.accountId)).toEqual(before);
    const canceled = await assignPlan(ctx.services.db, account.accountId, {
      planName: 'growth-annual-v1',
      peopleUpperLimit: 15000,
      provider: 'paypal',
      status: 'canceled',
    });
    expect(canceled).toMatchObject({ changed: true, status: 'canceled' });
    expect((await row(account.accountId)).status).toBe('canceled');
  });

  it('works inside a caller transaction, and a later failure there undoes it', async () => {
    const { account } = await registerUser(ctx.app);
    await expect(
      ctx.services.db.transaction().execute(async (trx) => {
        await assignPlan(trx, account.accountId, {
          planName: 'paypal-lifetime-v1',
          peopleUpperLimit: 5000,
          provider: 'paypal',
        });
        throw new Error('later step failed');
      }),
    ).rejects.toThrow('later step failed');
    expect((await row(account.accountId)).planName).toBeNull();
  });

  it('keeps a blocked account blocked', async () => {
    const { account } = await registerUser(ctx.app);
    await sql`update accounts set status = 'blocked' where id = ${account.accountId}`.execute(
      ctx.services.db,
    );
    expect(
      (
        await assignPlan(ctx.services.db, account.accountId, {
          planName: 'growth-monthly-v1',
          peopleUpperLimit: 2000,
          provider: 'operator',
        })
      ).status,
    ).toBe('blocked');
    expect(await row(account.accountId)).toMatchObject({ status: 'blocked', planName: 'growth-monthly-v1' });
  });

  it('a missing account is a 404', async () => {
    await expect(
      assignPlan(ctx.services.db, 987654321, {
        planName: 'growth-monthly-v1',
        peopleUpperLimit: 2000,
        provider: 'operator',
      }),
    ).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('people limits', () => {
  it('ok below 90%, a warning from 90%, an account issue at 100% that says what keeps working, resolved by an upgrade', async () => {
    const { client, account } = await registerUser(ctx.app);
    await assignPlan(ctx.services.db, account.accountId, {
      planName: 'growth-monthly-v1',
      peopleUpperLimit: 2000,
      provider: 'operator',
    });
    await addPeople(account.accountId, 1799);
    expect((await client.get('/v1/billing')).body.usage).toBe('ok');
    await addPeople(account.accountId, 1, 1800);
    expect((await client.get('/v1/billing')).body).toMatchObject({
      usage: 'warning',
      peopleCount: 1800,
      peopleUpperLimit: 2000,
    });
    expect((await runBillingSweep(ctx.services)).opened).not.toContain(account.accountId);
    expect((await client.get('/v1/accounts/issues')).body.issues).toEqual([]);

    await addPeople(account.accountId, 200, 1801);
    expect((await client.get('/v1/billing')).body.usage).toBe('over');
    expect((await runBillingSweep(ctx.services)).opened).toContain(account.accountId);
    expect((await runBillingSweep(ctx.services)).opened).not.toContain(account.accountId);
    const issues = (await client.get('/v1/accounts/issues')).body.issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ kind: 'people-limit' });
    expect(issues[0].message).toContain('Your account has 2,000 people and your plan includes 2,000.');
    expect(issues[0].message).toContain('imports, forms and tracking keep adding people');

    // Nothing stops: people can still be added over the limit.
    const added = await client.post('/v1/people/?source=manual', { email: 'over-the-limit@example.com' });
    expect(added.status).toBeLessThan(300);

    await assignPlan(ctx.services.db, account.accountId, {
      planName: 'growth-monthly-v1',
      peopleUpperLimit: 5000,
      provider: 'operator',
    });
    expect((await client.get('/v1/accounts/issues')).body.issues).toEqual([]);
    expect((await client.get('/v1/billing')).body.usage).toBe('ok');
  });

  it('the sweep resolves the issue once people are archived below the limit', async () => {
    const { client, account } = await registerUser(ctx.app);
    await assignPlan(ctx.services.db, account.accountId, {
      planName: 'premium-monthly-v3',
      peopleUpperLimit: 2000,
      provider: 'operator',
    });
    await addPeople(account.accountId, 2000);
    expect((await runBillingSweep(ctx.services)).opened).toContain(account.accountId);
    await sql`update people set archived_at = now() where account_id = ${account.accountId} and id in (select id from people where account_id = ${account.accountId} limit 10)`.execute(
      ctx.services.db,
    );
    expect((await runBillingSweep(ctx.services)).resolved).toContain(account.accountId);
    expect((await client.get('/v1/accounts/issues')).body.issues).toEqual([]);
  });
});
