import { decodeInputFields, encodeInputFields, flowApiMessages, flowCopyMessages, flowMessages, scopeIds, type Flow, type InputFields, type Step } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../src/lib/tokens.ts';
import { newEmail } from './email-helpers.ts';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

type Owner = Awaited<ReturnType<typeof registerUser>>;

async function created(res: Promise<{ status: number; body: any }>, status = 201) {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
}
const addStep = async (client: Client, flowId: number, operationKey: string, config: Record<string, unknown>): Promise<Step> =>
  (await created(client.post('/v1/steps/', { flowId, operationKey, inputFields: encodeInputFields(config) }))).step;
const settings = (step: Step) => decodeInputFields(step.inputFields as InputFields);
const stepOf = (flow: Flow, operationKey: string) => Object.values(flow.steps).find((s) => s.operationKey === operationKey)!;

/**
 * A flow using two emails (one by a send step, one by a segment's email-activity condition), two segments (one
 * inside the other), and custom fields in steps, conditions and a merge tag.
 */
async function richFlow(owner: Owner) {
  const { client } = owner;
  await created(client.post('/v1/fields', { items: [{ name: 'plan', title: 'Plan', type: 'string' }, { name: 'score', title: 'Score', type: 'number' }, { name: 'nickname', title: 'Nickname', type: 'string' }] }), 201);
  const welcome = (await created(client.post('/v1/emails', newEmail({ name: 'Welcome', html: '<p>Hi {{ person.nickname }}</p><a href="{{ unsubscribe_url }}">Unsubscribe</a>' })))).email;
  const teaser = (await created(client.post('/v1/emails', newEmail({ name: 'Teaser' })))).email;
  const customers = (await created(client.post('/v1/segments/', { name: 'Customers', conditions: [{ type: 'tag', operator: 'has', tag: 'customer' }] }))).segment;
  const engaged = (
    await created(
      client.post('/v1/segments/', {
        name: 'Engaged',
        conditions: [
          { type: 'field', field: 'plan', operator: 'equals', value: 'pro' },
          { type: 'group', operator: 'or', conditions: [{ type: 'segment', operator: 'in', segmentId: customers.id }, { type: 'emailActivity', activity: 'opened', subject: { type: 'email', id: teaser.id } }] },
        ],
      }),
    )
  ).segment;
  const flow = (await created(client.post('/v1/integrations', { name: 'Onboarding' }))).integration as Flow;
  const trigger = await addStep(client, flow.id, '/entered-segment', { segment: { id: engaged.id } });
  const send = await addStep(client, flow.id, '/send', { email: { id: welcome.id } });
  const check = await addStep(client, flow.id, '/check-field', { condition: { type: 'field', field: 'score', operator: 'greaterThan', value: 5 } });
  const change = await addStep(client, flow.id, '/change-field', { field: 'plan', value: 'vip' });
  await created(client.post('/v1/links/', { source: trigger.id, target: send.id }));
  await created(client.post('/v1/links/', { source: send.id, target: check.id }));
  await created(client.post('/v1/links/', { source: check.id, target: change.id, condition: 'yes' }));
  await created(client.patch(`/v1/integrations/${flow.id}`, { reentry: 'after-days', reentryDays: 3 }), 200);
  return { flow, welcome, teaser, customers, engaged };
}

async function subaccount(owner: Owner, name = 'Client Co') {
  return (await created(owner.client.post('/v1/team-members/accounts', { name }))).subaccount.id as number;
}

/** Rows of an account, read as the database owner (the test looks into the target without switching). */
const rowsOf = (table: 'emails' | 'segments' | 'personFields' | 'flows', accountId: number) =>
  ctx.services.db.selectFrom(table).selectAll().where('accountId', '=', accountId).execute() as Promise<any[]>;

describe('copying a flow into another account', () => {
  it('copies the flow with its emails, segments and fields into a sub-account, renaming clashes and remapping ids', async () => {
    const owner = await registerUser(ctx.app);
    const source = await richFlow(owner);
    const sub = await subaccount(owner);
    // What the sub-account already has: an email and a segment of the same names, 'plan' as a string (reused),
    // 'score' as text (the copy's number field gets a new key).
    await owner.client.post(`/v1/accounts/${sub}/switch`);
    await created(owner.client.post('/v1/fields', { items: [{ name: 'Plan', title: 'Their plan', type: 'string' }, { name: 'score', title: 'Score', type: 'string' }] }));
    await created(owner.client.post('/v1/emails', newEmail({ name: 'Welcome' })));
    await created(owner.client.post('/v1/segments/', { name: 'Engaged', conditions: [{ type: 'tag', operator: 'has', tag: 'x' }] }));
    await owner.client.post(`/v1/accounts/${owner.account.accountId}/switch`);

    const preview = await created(owner.client.get(`/v1/integrations/${source.flow.id}/copy-preview?target-account=${sub}`), 200);
    expect(preview).toEqual({ accountId: sub, sameAccount: false, copied: { emails: 2, segments: 2, fields: 2 } });

    const body = await created(owner.client.post(`/v1/integrations?source=${source.flow.id}&target-account=${sub}`, {}));
    expect(body).toMatchObject({ message: flowMessages.copied, accountId: sub, copied: { emails: 2, segments: 2, fields: 2 } });
    const copy = body.integration as Flow;
    expect(copy).toMatchObject({ name: 'Copy of Onboarding', status: 'deactivated-user', reentry: 'after-days', reentryDays: 3 });
    expect(Object.keys(copy.steps)).toHaveLength(4);
    expect(copy.links).toHaveLength(3);

    const emails = await rowsOf('emails', sub);
    const welcomeCopy = emails.find((e) => e.name === 'Welcome (copy)');
    const teaserCopy = emails.find((e) => e.name === 'Teaser');
    expect(welcomeCopy.html).toContain('{{ person.nickname }}');
    expect(Number(teaserCopy.id)).not.toBe(source.teaser.id);
    const segments = await rowsOf('segments', sub);
    const engagedCopy = segments.find((s) => s.name === 'Engaged (copy)');
    const customersCopy = segments.find((s) => s.name === 'Customers');
    expect(engagedCopy.conditions).toEqual([
      { type: 'field', field: 'Plan', operator: 'equals', value: 'pro' },
      {
        type: 'group',
        operator: 'or',
        conditions: [
          { type: 'segment', operator: 'in', segmentId: Number(customersCopy.id) },
          { type: 'emailActivity', activity: 'opened', performed: true, subject: { type: 'email', id: Number(teaserCopy.id) }, window: { type: 'ever' } },
        ],
      },
    ]);
    const fields = (await rowsOf('personFields', sub)).map((f) => [f.name, f.type]);
    expect(fields).toEqual(expect.arrayContaining([['Plan', 'string'], ['score', 'string'], ['score_2', 'number'], ['nickname', 'string']]));

    expect(settings(stepOf(copy, '/entered-segment'))).toEqual({ segment: { id: Number(engagedCopy.id) } });
    expect(settings(stepOf(copy, '/send'))).toEqual({ email: { id: Number(welcomeCopy.id) } });
    expect(settings(stepOf(copy, '/check-field'))).toMatchObject({ condition: { field: 'score_2' } });
    expect(settings(stepOf(copy, '/change-field'))).toEqual({ field: 'Plan', value: 'vip' });

    // The copy lives in the sub-account, readable there with its problems resolved; the original is untouched.
    await owner.client.post(`/v1/accounts/${sub}/switch`);
    const there = await created(owner.client.get(`/v1/integrations/${copy.id}`), 200);
    expect(Object.values(there.integration.steps as Record<string, Step>).map((s) => s.problem)).toEqual([null, null, null, null]);
    await owner.client.post(`/v1/accounts/${owner.account.accountId}/switch`);
    expect((await owner.client.get(`/v1/integrations/${copy.id}`)).status).toBe(404);
    const original = await created(owner.client.get(`/v1/integrations/${source.flow.id}`), 200);
    expect(settings(stepOf(original.integration, '/send'))).toEqual({ email: { id: source.welcome.id } });
    expect((await rowsOf('emails', owner.account.accountId)).map((e) => e.name).sort()).toEqual(['Teaser', 'Welcome']);
  });

  it('within one account shares the emails and segments, as before', async () => {
    const owner = await registerUser(ctx.app);
    const source = await richFlow(owner);
    const body = await created(owner.client.post(`/v1/integrations?source=${source.flow.id}&target-account=${owner.account.accountId}`, { name: 'Twin' }));
    expect(body).toMatchObject({ copied: { emails: 0, segments: 0, fields: 0 }, accountId: owner.account.accountId, integration: { name: 'Twin' } });
    expect(settings(stepOf(body.integration, '/send'))).toEqual({ email: { id: source.welcome.id } });
    expect(await rowsOf('emails', owner.account.accountId)).toHaveLength(2);
    expect((await created(owner.client.get(`/v1/integrations/${source.flow.id}/copy-preview`), 200)).sameAccount).toBe(true);
  });

  it("copies a shared flow into the visitor's own account with the share token", async () => {
    const owner = await registerUser(ctx.app);
    const source = await richFlow(owner);
    const token = (await owner.client.get(`/v1/integrations/${source.flow.id}/share-token`)).body.shareToken as string;
    const visitor = await registerUser(ctx.app);
    const q = `source=${source.flow.id}&read-only-auth=${encodeURIComponent(token)}`;
    expect((await created(visitor.client.get(`/v1/integrations/${source.flow.id}/copy-preview?read-only-auth=${encodeURIComponent(token)}`), 200)).copied).toEqual({ emails: 2, segments: 2, fields: 3 });
    const body = await created(visitor.client.post(`/v1/integrations?${q}`, {}));
    expect(body).toMatchObject({ accountId: visitor.account.accountId, copied: { emails: 2, segments: 2, fields: 3 } });
    const list = await created(visitor.client.get('/v1/integrations'), 200);
    expect(list.integrations.map((f: Flow) => f.name)).toEqual(['Copy of Onboarding']);
    expect((await rowsOf('flows', owner.account.accountId)).map((f) => f.name)).toEqual(['Onboarding']);
    // A second copy gets names clear of the first.
    const again = await created(visitor.client.post(`/v1/integrations?${q}`, {}));
    expect(again.copied).toEqual({ emails: 2, segments: 2, fields: 0 });
    expect((await rowsOf('emails', visitor.account.accountId)).map((e) => e.name).sort()).toEqual(['Teaser', 'Teaser (copy)', 'Welcome', 'Welcome (copy)']);
  });

  it('writes nothing when the copy fails half-way', async () => {
    const owner = await registerUser(ctx.app);
    const source = await richFlow(owner);
    const sub = await subaccount(owner);
    // The last write of a copy (the links) fails in this account only.
    await sql
      .raw(
        `create or replace function test_refuse_links() returns trigger language plpgsql as $$ begin
           if new.account_id = ${sub} then raise exception 'refused for the test'; end if; return new; end $$;
         create trigger test_refuse_links before insert on flow_links for each row execute function test_refuse_links();`,
      )
      .execute(ctx.services.db);
    try {
      const res = await owner.client.post(`/v1/integrations?source=${source.flow.id}&target-account=${sub}`, {});
      expect(res.status).toBe(500);
    } finally {
      await sql.raw('drop trigger test_refuse_links on flow_links; drop function test_refuse_links();').execute(ctx.services.db);
    }
    expect(await rowsOf('flows', sub)).toEqual([]);
    expect(await rowsOf('emails', sub)).toEqual([]);
    expect((await rowsOf('segments', sub)).filter((s) => !s.autoType)).toEqual([]);
    expect((await rowsOf('personFields', sub)).filter((f) => f.createdBy !== 'system')).toEqual([]);
  });
});

describe('refusals', () => {
  it('refuses forged, changed, expired and other-flow share tokens with 403', async () => {
    const owner = await registerUser(ctx.app);
    const { flow } = await richFlow(owner);
    const other = (await created(owner.client.post('/v1/integrations', { name: 'Other' }))).integration as Flow;
    const token = (await owner.client.get(`/v1/integrations/${flow.id}/share-token`)).body.shareToken as string;
    const visitor = await registerUser(ctx.app);
    const expired = signToken({ kind: 'flow-share', a: owner.account.accountId, f: flow.id }, ctx.services.secret, -60);
    const forged = signToken({ kind: 'flow-share', a: owner.account.accountId, f: flow.id }, 'not-the-secret-not-the-secret-0123456789', 3600);
    const wrongKind = signToken({ kind: 'password-reset', a: owner.account.accountId, f: flow.id }, ctx.services.secret, 3600);
    for (const bad of [expired, forged, wrongKind, token.slice(0, -3), 'nonsense']) {
      const res = await visitor.client.post(`/v1/integrations?source=${flow.id}&read-only-auth=${encodeURIComponent(bad)}`, {});
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(flowApiMessages.shareInvalid);
    }
    // The token opens its own flow only.
    expect((await visitor.client.post(`/v1/integrations?source=${other.id}&read-only-auth=${encodeURIComponent(token)}`, {})).status).toBe(403);
    expect((await visitor.client.get(`/v1/integrations/${other.id}/copy-preview?read-only-auth=${encodeURIComponent(token)}`)).status).toBe(403);
    expect(await rowsOf('flows', visitor.account.accountId)).toEqual([]);
  });

  it('opens the step catalogue to a share token holder, and to no one else without a session', async () => {
    const owner = await registerUser(ctx.app);
    const { flow } = await richFlow(owner);
    const token = encodeURIComponent((await owner.client.get(`/v1/integrations/${flow.id}/share-token`)).body.shareToken as string);
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
    const token = encodeURIComponent((await owner.client.get(`/v1/integrations/${flow.id}/share-token`)).body.shareToken as string);
    const person = await created(owner.client.post('/v1/people/?source=manual', { email: 'waiting@example.com' }));
    const stepId = Number(Object.keys((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.steps)[0]);
    await ctx.services.db.insertInto('flowRuns').values({ accountId: owner.account.accountId, flowId: flow.id, personId: person.user.id, stepId, status: 'active' }).execute();
    expect((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.steps[String(stepId)].peopleCount).toBe(1);
    const shared = await new Client(ctx.app).get(`/v1/integrations/${flow.id}?read-only-auth=${token}`);
    expect(Object.values(shared.body.integration.steps as Record<string, Step>).map((s) => s.peopleCount)).toEqual([0, 0, 0, 0]);
    expect((await new Client(ctx.app).get(`/v1/integrations/${flow.id}/people-counts?read-only-auth=${token}`)).status).toBe(401);
  });

  it('never lets a share token write to the source account', async () => {
    const owner = await registerUser(ctx.app);
    const { flow } = await richFlow(owner);
    const token = encodeURIComponent((await owner.client.get(`/v1/integrations/${flow.id}/share-token`)).body.shareToken as string);
    const visitor = await registerUser(ctx.app);
    const anonymous = new Client(ctx.app);
    const step = Object.values(flow.steps)[0];
    const stepId = step ? step.id : Number(Object.keys((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.steps)[0]);
    for (const client of [visitor.client, anonymous]) {
      expect([401, 404]).toContain((await client.patch(`/v1/integrations/${flow.id}?read-only-auth=${token}`, { name: 'Taken' })).status);
      expect([401, 404]).toContain((await client.request('DELETE', `/v1/steps/${stepId}?read-only-auth=${token}`)).status);
      expect([401, 404]).toContain((await client.patch(`/v1/steps/${stepId}?read-only-auth=${token}`, { coordinates: { x: 1, y: 1 } })).status);
      expect([401, 404]).toContain((await client.get(`/v1/integrations/${flow.id}/share-token?read-only-auth=${token}`)).status);
    }
    // Copying into the source account itself needs membership there.
    const intoSource = await visitor.client.post(`/v1/integrations?source=${flow.id}&read-only-auth=${token}&target-account=${owner.account.accountId}`, {});
    expect(intoSource.status).toBe(403);
    expect(intoSource.body.message).toBe(flowCopyMessages.notMember);
    expect((await anonymous.post(`/v1/integrations?source=${flow.id}&read-only-auth=${token}`, {})).status).toBe(401);
    expect((await rowsOf('flows', owner.account.accountId)).map((f) => f.name)).toEqual(['Onboarding']);
    expect((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.name).toBe('Onboarding');
  });

  it('refuses a target account the user does not belong to or cannot write flows in, and an unknown source', async () => {
    const owner = await registerUser(ctx.app);
    const { flow } = await richFlow(owner);
    const stranger = await registerUser(ctx.app);
    const notMine = await owner.client.post(`/v1/integrations?source=${flow.id}&target-account=${stranger.account.accountId}`, {});
    expect(notMine.status).toBe(403);
    expect(notMine.body.message).toBe(flowCopyMessages.notMember);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/copy-preview?target-account=${stranger.account.accountId}`)).status).toBe(403);

    // A sub-account where the user is a member without flows:write.
    const sub = await subaccount(owner, 'Read only here');
    await ctx.services.db
      .updateTable('teamMembers')
      .set({ isOwner: false, scopes: JSON.stringify(scopeIds.map((id) => ({ id, enabled: id !== 'flows:write' }))) })
      .where('accountId', '=', sub)
      .where('userId', '=', (await ctx.services.db.selectFrom('teamMembers').select('userId').where('id', '=', owner.account.teamMemberId).executeTakeFirstOrThrow()).userId)
      .execute();
    const readOnly = await owner.client.post(`/v1/integrations?source=${flow.id}&target-account=${sub}`, {});
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.message).toBe(flowCopyMessages.noWriteInTarget);
    expect(await rowsOf('flows', sub)).toEqual([]);

    expect((await owner.client.post('/v1/integrations?source=999999999', {})).status).toBe(404);
    expect((await owner.client.get('/v1/integrations/999999999/copy-preview')).status).toBe(404);
    expect((await stranger.client.post(`/v1/integrations?source=${flow.id}`, {})).status).toBe(404);
    expect((await owner.client.post(`/v1/integrations?source=${flow.id}&target-account=abc`, {})).status).toBe(400);
    expect((await owner.client.post(`/v1/integrations?source=${flow.id}&target-account=-3`, {})).status).toBe(400);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/copy-preview?target-account=0`)).status).toBe(400);
    expect((await new Client(ctx.app).get(`/v1/integrations/${flow.id}/copy-preview`)).status).toBe(401);
  });
});
