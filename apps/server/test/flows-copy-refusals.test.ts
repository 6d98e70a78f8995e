import { flowApiMessages, flowCopyMessages, scopeIds, type Flow, type Step } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { signToken } from '../src/lib/tokens.ts';
import { created, ctx, richFlow, rowsOf, subaccount, useFlowsCopyContext } from './flows-copy-fixtures.ts';
import { Client, registerUser } from './helpers.ts';

// What copying a flow refuses: bad share tokens, writes through a share token, and target accounts the user cannot
// write flows in (copies that go through are flows-copy.test.ts).
useFlowsCopyContext();

describe('refusals', () => {
  it('refuses forged, changed, expired and other-flow share tokens with 403', async () => {
    const owner = await registerUser(ctx.app);
    const { flow } = await richFlow(owner);
    const other = (await created(owner.client.post('/v1/integrations', { name: 'Other' })))
      .integration as Flow;
    const token = (await owner.client.get(`/v1/integrations/${flow.id}/share-token`)).body
      .shareToken as string;
    const visitor = await registerUser(ctx.app);
    const expired = signToken(
      { kind: 'flow-share', a: owner.account.accountId, f: flow.id },
      ctx.services.secret,
      -60,
    );
    const forged = signToken(
      { kind: 'flow-share', a: owner.account.accountId, f: flow.id },
      'not-the-secret-not-the-secret-0123456789',
      3600,
    );
    const wrongKind = signToken(
      { kind: 'password-reset', a: owner.account.accountId, f: flow.id },
      ctx.services.secret,
      3600,
    );
    for (const bad of [expired, forged, wrongKind, token.slice(0, -3), 'nonsense']) {
      const res = await visitor.client.post(
        `/v1/integrations?source=${flow.id}&read-only-auth=${encodeURIComponent(bad)}`,
        {},
      );
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(flowApiMessages.shareInvalid);
    }
    // The token opens its own flow only.
    expect(
      (
        await visitor.client.post(
          `/v1/integrations?source=${other.id}&read-only-auth=${encodeURIComponent(token)}`,
          {},
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await visitor.client.get(
          `/v1/integrations/${other.id}/copy-preview?read-only-auth=${encodeURIComponent(token)}`,
        )
      ).status,
    ).toBe(403);
    expect(await rowsOf('flows', visitor.account.accountId)).toEqual([]);
  });

  it('opens the step catalogue to a share token holder, and to no one else without a session', async () => {
    const owner = await registerUser(ctx.app);
    const { flow } = await richFlow(owner);
    const token = encodeURIComponent(
      (await owner.client.get(`/v1/integrations/${flow.id}/share-token`)).body.shareToken as string,
    );
    const anonymous = new Client(ctx.app);
    const catalogue = await anonymous.get(`/v1/services?read-only-auth=${token}`);
    expect(catalogue.status).toBe(200);
    expect(catalogue.body.steps.length).toBeGreaterThan(10);
    expect((await anonymous.get(`/v1/services?read-only-auth=${token.slice(0, -4)}`)).status).toBe(403);
    expect((await anonymous.get('/v1/services')).status).toBe(401);
    expect((await owner.client.get('/v1/services')).status).toBe(200);
  });

  it('shows a share link no people at the steps', async () => {
    const owner = await registerUser(ctx.app);
    const { flow } = await richFlow(owner);
    const token = encodeURIComponent(
      (await owner.client.get(`/v1/integrations/${flow.id}/share-token`)).body.shareToken as string,
    );
    const person = await created(
      owner.client.post('/v1/people/?source=manual', { email: 'waiting@example.com' }),
    );
    const stepId = Number(
      Object.keys((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.steps)[0],
    );
    await ctx.services.db
      .insertInto('flowRuns')
      .values({
        accountId: owner.account.accountId,
        flowId: flow.id,
        personId: person.user.id,
        stepId,
        status: 'active',
      })
      .execute();
    expect(
      (await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.steps[String(stepId)]
        .peopleCount,
    ).toBe(1);
    const shared = await new Client(ctx.app).get(`/v1/integrations/${flow.id}?read-only-auth=${token}`);
    expect(
      Object.values(shared.body.integration.steps as Record<string, Step>).map((s) => s.peopleCount),
    ).toEqual([0, 0, 0, 0]);
    expect(
      (await new Client(ctx.app).get(`/v1/integrations/${flow.id}/people-counts?read-only-auth=${token}`))
        .status,
    ).toBe(401);
  });

  it('never lets a share token write to the source account', async () => {
    const owner = await registerUser(ctx.app);
    const { flow } = await richFlow(owner);
    const token = encodeURIComponent(
      (await owner.client.get(`/v1/integrations/${flow.id}/share-token`)).body.shareToken as string,
    );
    const visitor = await registerUser(ctx.app);
    const anonymous = new Client(ctx.app);
    const step = Object.values(flow.steps)[0];
    const stepId = step
      ? step.id
      : Number(
          Object.keys((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.steps)[0],
        );
    for (const client of [visitor.client, anonymous]) {
      expect([401, 404]).toContain(
        (await client.patch(`/v1/integrations/${flow.id}?read-only-auth=${token}`, { name: 'Taken' })).status,
      );
      expect([401, 404]).toContain(
        (await client.request('DELETE', `/v1/steps/${stepId}?read-only-auth=${token}`)).status,
      );
      expect([401, 404]).toContain(
        (await client.patch(`/v1/steps/${stepId}?read-only-auth=${token}`, { coordinates: { x: 1, y: 1 } }))
          .status,
      );
      expect([401, 404]).toContain(
        (await client.get(`/v1/integrations/${flow.id}/share-token?read-only-auth=${token}`)).status,
      );
    }
    // Copying into the source account itself needs membership there.
    const intoSource = await visitor.client.post(
      `/v1/integrations?source=${flow.id}&read-only-auth=${token}&target-account=${owner.account.accountId}`,
      {},
    );
    expect(intoSource.status).toBe(403);
    expect(intoSource.body.message).toBe(flowCopyMessages.notMember);
    expect(
      (await anonymous.post(`/v1/integrations?source=${flow.id}&read-only-auth=${token}`, {})).status,
    ).toBe(401);
    expect((await rowsOf('flows', owner.account.accountId)).map((f) => f.name)).toEqual(['Onboarding']);
    expect((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.name).toBe('Onboarding');
  });

  it('refuses a target account the user does not belong to or cannot write flows in, and an unknown source', async () => {
    const owner = await registerUser(ctx.app);
    const { flow } = await richFlow(owner);
    const stranger = await registerUser(ctx.app);
    const notMine = await owner.client.post(
      `/v1/integrations?source=${flow.id}&target-account=${stranger.account.accountId}`,
      {},
    );
    expect(notMine.status).toBe(403);
    expect(notMine.body.message).toBe(flowCopyMessages.notMember);
    expect(
      (
        await owner.client.get(
          `/v1/integrations/${flow.id}/copy-preview?target-account=${stranger.account.accountId}`,
        )
      ).status,
    ).toBe(403);

    // A sub-account where the user is a member without flows:write.
    const sub = await subaccount(owner, 'Read only here');
    await ctx.services.db
      .updateTable('teamMembers')
      .set({
        isOwner: false,
        scopes: JSON.stringify(scopeIds.map((id) => ({ id, enabled: id !== 'flows:write' }))),
      })
      .where('accountId', '=', sub)
      .where(
        'userId',
        '=',
        (
          await ctx.services.db
            .selectFrom('teamMembers')
            .select('userId')
            .where('id', '=', owner.account.teamMemberId)
            .executeTakeFirstOrThrow()
        ).userId,
      )
      .execute();
    const readOnly = await owner.client.post(`/v1/integrations?source=${flow.id}&target-account=${sub}`, {});
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.message).toBe(flowCopyMessages.noWriteInTarget);
    expect(await rowsOf('flows', sub)).toEqual([]);

    expect((await owner.client.post('/v1/integrations?source=999999999', {})).status).toBe(404);
    expect((await owner.client.get('/v1/integrations/999999999/copy-preview')).status).toBe(404);
    expect((await stranger.client.post(`/v1/integrations?source=${flow.id}`, {})).status).toBe(404);
    expect(
      (await owner.client.post(`/v1/integrations?source=${flow.id}&target-account=abc`, {})).status,
    ).toBe(400);
    expect((await owner.client.post(`/v1/integrations?source=${flow.id}&target-account=-3`, {})).status).toBe(
      400,
    );
    expect((await owner.client.get(`/v1/integrations/${flow.id}/copy-preview?target-account=0`)).status).toBe(
      400,
    );
    expect((await new Client(ctx.app).get(`/v1/integrations/${flow.id}/copy-preview`)).status).toBe(401);
  });
});
