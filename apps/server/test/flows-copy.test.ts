import { flowMessages, type Flow, type Step } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newEmail } from './email-helpers.ts';
import {
  created,
  ctx,
  richFlow,
  rowsOf,
  settings,
  stepOf,
  subaccount,
  useFlowsCopyContext,
} from './flows-copy-fixtures.ts';
import { registerUser } from './helpers.ts';

// Copying a flow into another account with what it uses, into the same one, or from a share link (what a copy
// refuses is flows-copy-refusals.test.ts; the remapping itself, flows-copy-remap.test.ts).
useFlowsCopyContext();

describe('copying a flow into another account', () => {
  it('copies the flow with its emails, segments and fields into a sub-account, renaming clashes and remapping ids', async () => {
    const owner = await registerUser(ctx.app);
    const source = await richFlow(owner);
    const sub = await subaccount(owner);
    // What the sub-account already has: an email and a segment of the same names, 'plan' as a string (reused),
    // 'score' as text (the copy's number field gets a new key).
    await owner.client.post(`/v1/accounts/${sub}/switch`);
    await created(
      owner.client.post('/v1/fields', {
        items: [
          { name: 'Plan', title: 'Their plan', type: 'string' },
          { name: 'score', title: 'Score', type: 'string' },
        ],
      }),
    );
    await created(owner.client.post('/v1/emails', newEmail({ name: 'Welcome' })));
    await created(
      owner.client.post('/v1/segments/', {
        name: 'Engaged',
        conditions: [{ type: 'tag', operator: 'has', tag: 'x' }],
      }),
    );
    await owner.client.post(`/v1/accounts/${owner.account.accountId}/switch`);

    const preview = await created(
      owner.client.get(`/v1/integrations/${source.flow.id}/copy-preview?target-account=${sub}`),
      200,
    );
    expect(preview).toEqual({
      accountId: sub,
      sameAccount: false,
      copied: { emails: 2, segments: 2, fields: 2 },
    });

    const body = await created(
      owner.client.post(`/v1/integrations?source=${source.flow.id}&target-account=${sub}`, {}),
    );
    expect(body).toMatchObject({
      message: flowMessages.copied,
      accountId: sub,
      copied: { emails: 2, segments: 2, fields: 2 },
    });
    const copy = body.integration as Flow;
    expect(copy).toMatchObject({
      name: 'Copy of Onboarding',
      status: 'deactivated-user',
      reentry: 'after-days',
      reentryDays: 3,
    });
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
          {
            type: 'emailActivity',
            activity: 'opened',
            performed: true,
            subject: { type: 'email', id: Number(teaserCopy.id) },
            window: { type: 'ever' },
          },
        ],
      },
    ]);
    const fields = (await rowsOf('personFields', sub)).map((f) => [f.name, f.type]);
    expect(fields).toEqual(
      expect.arrayContaining([
        ['Plan', 'string'],
        ['score', 'string'],
        ['score_2', 'number'],
        ['nickname', 'string'],
      ]),
    );

    expect(settings(stepOf(copy, '/entered-segment'))).toEqual({ segment: { id: Number(engagedCopy.id) } });
    expect(settings(stepOf(copy, '/send'))).toEqual({ email: { id: Number(welcomeCopy.id) } });
    expect(settings(stepOf(copy, '/check-field'))).toMatchObject({ condition: { field: 'score_2' } });
    expect(settings(stepOf(copy, '/change-field'))).toEqual({ field: 'Plan', value: 'vip' });

    // The copy lives in the sub-account, readable there with its problems resolved; the original is untouched.
    await owner.client.post(`/v1/accounts/${sub}/switch`);
    const there = await created(owner.client.get(`/v1/integrations/${copy.id}`), 200);
    expect(Object.values(there.integration.steps as Record<string, Step>).map((s) => s.problem)).toEqual([
      null,
      null,
      null,
      null,
    ]);
    await owner.client.post(`/v1/accounts/${owner.account.accountId}/switch`);
    expect((await owner.client.get(`/v1/integrations/${copy.id}`)).status).toBe(404);
    const original = await created(owner.client.get(`/v1/integrations/${source.flow.id}`), 200);
    expect(settings(stepOf(original.integration, '/send'))).toEqual({ email: { id: source.welcome.id } });
    expect((await rowsOf('emails', owner.account.accountId)).map((e) => e.name).sort()).toEqual([
      'Teaser',
      'Welcome',
    ]);
  });

  it('within one account shares the emails and segments, as before', async () => {
    const owner = await registerUser(ctx.app);
    const source = await richFlow(owner);
    const body = await created(
      owner.client.post(
        `/v1/integrations?source=${source.flow.id}&target-account=${owner.account.accountId}`,
        { name: 'Twin' },
      ),
    );
    expect(body).toMatchObject({
      copied: { emails: 0, segments: 0, fields: 0 },
      accountId: owner.account.accountId,
      integration: { name: 'Twin' },
    });
    expect(settings(stepOf(body.integration, '/send'))).toEqual({ email: { id: source.welcome.id } });
    expect(await rowsOf('emails', owner.account.accountId)).toHaveLength(2);
    expect(
      (await created(owner.client.get(`/v1/integrations/${source.flow.id}/copy-preview`), 200)).sameAccount,
    ).toBe(true);
  });

  it("copies a shared flow into the visitor's own account with the share token", async () => {
    const owner = await registerUser(ctx.app);
    const source = await richFlow(owner);
    const token = (await owner.client.get(`/v1/integrations/${source.flow.id}/share-token`)).body
      .shareToken as string;
    const visitor = await registerUser(ctx.app);
    const q = `source=${source.flow.id}&read-only-auth=${encodeURIComponent(token)}`;
    expect(
      (
        await created(
          visitor.client.get(
            `/v1/integrations/${source.flow.id}/copy-preview?read-only-auth=${encodeURIComponent(token)}`,
          ),
          200,
        )
      ).copied,
    ).toEqual({ emails: 2, segments: 2, fields: 3 });
    const body = await created(visitor.client.post(`/v1/integrations?${q}`, {}));
    expect(body).toMatchObject({
      accountId: visitor.account.accountId,
      copied: { emails: 2, segments: 2, fields: 3 },
    });
    const list = await created(visitor.client.get('/v1/integrations'), 200);
    expect(list.integrations.map((f: Flow) => f.name)).toEqual(['Copy of Onboarding']);
    expect((await rowsOf('flows', owner.account.accountId)).map((f) => f.name)).toEqual(['Onboarding']);
    // A second copy gets names clear of the first.
    const again = await created(visitor.client.post(`/v1/integrations?${q}`, {}));
    expect(again.copied).toEqual({ emails: 2, segments: 2, fields: 0 });
    expect((await rowsOf('emails', visitor.account.accountId)).map((e) => e.name).sort()).toEqual([
      'Teaser',
      'Teaser (copy)',
      'Welcome',
      'Welcome (copy)',
    ]);
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
      const res = await owner.client.post(
        `/v1/integrations?source=${source.flow.id}&target-account=${sub}`,
        {},
      );
      expect(res.status).toBe(500);
    } finally {
      await sql
        .raw('drop trigger test_refuse_links on flow_links; drop function test_refuse_links();')
        .execute(ctx.services.db);
    }
    expect(await rowsOf('flows', sub)).toEqual([]);
    expect(await rowsOf('emails', sub)).toEqual([]);
    expect((await rowsOf('segments', sub)).filter((s) => !s.autoType)).toEqual([]);
    expect((await rowsOf('personFields', sub)).filter((f) => f.createdBy !== 'system')).toEqual([]);
  });
});
