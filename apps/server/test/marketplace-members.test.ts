import { marketplaceMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { assignPlan } from '../src/features/billing/plan-assignment.ts';
import { addMember } from './email-helpers.ts';
import { Client, registerUser, uniqueEmail } from './helpers.ts';
import { accountRow, codeRow, ctx, newCode, smtp, useMarketplaceContext } from './marketplace-fixtures.ts';

useMarketplaceContext();

describe('POST /v1/marketplace/redeem for a signed-in member', () => {
  it('an owner redeems onto the current account; a larger code later raises the plan', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const small = await newCode(2000);
    const res = await owner.client.post('/v1/marketplace/redeem', { code: small });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accountCreated: false, plan: { peopleUpperLimit: 2000, price: 25.5 } });
    expect(res.body.account).toMatchObject({ accountId, status: 'active', name: owner.account.name });
    expect(await accountRow(accountId)).toMatchObject({
      planName: 'marketplace-growth-monthly-v1',
      planPeopleUpperLimit: 2000,
      planProvider: 'marketplace',
    });

    const larger = await newCode(20000);
    expect((await owner.client.post('/v1/marketplace/redeem', { code: larger })).status).toBe(200);
    expect(await accountRow(accountId)).toMatchObject({ planPeopleUpperLimit: 20000 });
    const listed = await owner.client.get('/v1/marketplace/redemptions');
    expect(listed.body.redemptions.map((r: { peopleUpperLimit: number }) => r.peopleUpperLimit)).toEqual([
      20000, 2000,
    ]);
  });

  it('a code that would not raise the plan is refused and stays free', async () => {
    const owner = await registerUser(ctx.app);
    expect((await owner.client.post('/v1/marketplace/redeem', { code: await newCode(10000) })).status).toBe(
      200,
    );
    const same = await newCode(10000);
    const res = await owner.client.post('/v1/marketplace/redeem', { code: same });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(marketplaceMessages.planAlreadyCovers);
    expect((await codeRow(same)).redeemedAt).toBeNull();
  });

  it('an account paying through a provider keeps its subscription; the code is not used', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    await assignPlan(ctx.services.db, accountId, {
      planName: 'growth-monthly-v1',
      peopleUpperLimit: 2000,
      provider: 'chargebee',
    });
    const code = await newCode(50000);
    const res = await owner.client.post('/v1/marketplace/redeem', { code });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(marketplaceMessages.paidPlanActive);
    expect(await accountRow(accountId)).toMatchObject({
      planName: 'growth-monthly-v1',
      planProvider: 'chargebee',
    });
    expect((await codeRow(code)).redeemedAt).toBeNull();
  });

  it('a used code, an unknown code and registration fields are refused without changing the account', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const code = await newCode();
    expect(
      (await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail() })).status,
    ).toBe(200);
    const used = await owner.client.post('/v1/marketplace/redeem', { code });
    expect(used.status).toBe(409);
    expect(used.body.message).toBe(marketplaceMessages.alreadyRedeemed);
    const unknown = await owner.client.post('/v1/marketplace/redeem', { code: 'NOT-LOADED-9' });
    expect(unknown.status).toBe(404);
    const withEmail = await owner.client.post('/v1/marketplace/redeem', {
      code: await newCode(),
      email: uniqueEmail(),
    });
    expect(withEmail.status).toBe(400);
    expect(withEmail.body.message).toBe(marketplaceMessages.signedInNoRegistration);
    expect(await accountRow(accountId)).toMatchObject({ status: 'trial', planName: null });
  });

  it('a member without billing:write gets 403; with billing:read they can list the redemptions', async () => {
    const owner = await registerUser(ctx.app);
    const member = await addMember(ctx, smtp, owner, ['billing:read']);
    const code = await newCode();
    const res = await member.post('/v1/marketplace/redeem', { code });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(marketplaceMessages.needsBillingWrite);
    expect((await codeRow(code)).redeemedAt).toBeNull();
    const listed = await member.get('/v1/marketplace/redemptions');
    expect(listed.status).toBe(200);
    expect(listed.body.redemptions).toEqual([]);
    const writer = await addMember(ctx, smtp, owner, ['billing:read', 'billing:write']);
    expect((await writer.post('/v1/marketplace/redeem', { code })).status).toBe(200);
    const none = await addMember(ctx, smtp, owner, []);
    expect((await none.get('/v1/marketplace/redemptions')).status).toBe(403);
    expect((await new Client(ctx.app).get('/v1/marketplace/redemptions')).status).toBe(401);
  });

  it('two accounts redeeming one code at the same moment: one wins, the other gets the clear 409', async () => {
    const [a, b] = await Promise.all([registerUser(ctx.app), registerUser(ctx.app)]);
    const code = await newCode();
    const answers = await Promise.all([
      a.client.post('/v1/marketplace/redeem', { code }),
      b.client.post('/v1/marketplace/redeem', { code }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = answers[0]!.status === 200 ? a : b;
    const loser = winner === a ? b : a;
    expect((await codeRow(code)).redeemedByAccountId).toBe(winner.account.accountId);
    expect(await accountRow(loser.account.accountId as number)).toMatchObject({
      planName: null,
      status: 'trial',
    });
  });
});
