import { flowRunMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runScheduledTriggers } from '../src/features/flows/flow-triggers.service.ts';
import { webhookBodySignature, webhookTriggerToken } from '../src/features/flows/flow-webhooks.service.ts';
import {
  ctx,
  duplicateSteps,
  makeFlow,
  origin,
  person,
  runsOf,
  setup,
  tagPerson,
  tagsOf,
  untagPerson,
  useFlowRunsContext,
  type StepSpec,
} from './flow-runs-fixtures.ts';
import { Client, uniqueEmail } from './helpers.ts';
import { until } from './until.ts';

// Who enters a flow and when: switched on or off, a segment, re-entry rules, the webhook trigger and the scheduled
// triggers (what a run then does is flow-runs-steps.test.ts).
useFlowRunsContext();

describe('flow runs: triggers, steps and effects', () => {
  it('a flow that is off enters nobody, and switching it on does not enter people who matched before', async () => {
    const { client, accountId } = await setup();
    const { flowId } = await makeFlow(
      accountId,
      [
        { name: 'trigger', op: '/added-tag', config: { tag: 'early' } },
        { name: 'tag', op: '/add-tag', config: { tag: 'seen' } },
      ],
      [['trigger', 'tag']],
      { active: false },
    );
    const before = await person(client, 'Before', ['early']);
    await ctx.services.db
      .updateTable('flows')
      .set({ status: 'active', activatedAt: new Date() })
      .where('accountId', '=', accountId)
      .where('id', '=', flowId)
      .execute();
    const after = await person(client, 'After');
    await tagPerson(client, after.id, 'early');
    await until(
      async () => {
        const t = await tagsOf(accountId, after.id);
        return t.includes('seen') && t;
      },
      { timeout: 20_000, message: 'tag added' },
    );
    expect((await runsOf(accountId, flowId)).map((r) => r.personId)).toEqual([after.id]);
    expect(await tagsOf(accountId, before.id)).not.toContain('seen');
  });

  it('a segment entry of N people starts N runs in one statement, each executing every step once', async () => {
    const { client, accountId } = await setup();
    const segment = await client.post('/v1/segments/', {
      name: 'VIPs',
      conditions: [{ type: 'tag', operator: 'has', tag: 'vip' }],
    });
    expect(segment.status).toBe(201);
    const segmentId = segment.body.segment.id as number;
    await until(
      async () => {
        const r = (
          await ctx.services.db
            .selectFrom('segments')
            .select('refreshedAt')
            .where('accountId', '=', accountId)
            .where('id', '=', segmentId)
            .executeTakeFirstOrThrow()
        ).refreshedAt;
        return r !== null && r;
      },
      { timeout: 20_000, message: 'segment built' },
    );
    const { flowId } = await makeFlow(
      accountId,
      [
        { name: 'trigger', op: '/entered-segment', config: { segment: { id: segmentId } } },
        { name: 'tag', op: '/add-tag', config: { tag: 'welcomed' } },
        { name: 'score', op: '/lead-score', config: { change: 5 } },
      ],
      [
        ['trigger', 'tag'],
        ['tag', 'score'],
      ],
    );
    const people = [];
    for (let i = 0; i < 12; i++) people.push(await person(client, `Vip${i}`));
    // One bulk statement tags all twelve; the membership refresh enters them together.
    await sql`update people set tags = array_append(tags, 'vip') where account_id = ${accountId} and id = any(${people.map((p) => p.id)}::bigint[])`.execute(
      ctx.services.db,
    );
    const runs = await until(
      async () => {
        const r = await runsOf(accountId, flowId);
        return r.length === 12 && r.every((run) => run.status === 'done') && r;
      },
      { timeout: 30_000, message: '12 runs done' },
    );
    expect(new Set(runs.map((r) => r.personId))).toEqual(new Set(people.map((p) => p.id)));
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from flow_run_steps where account_id = ${accountId} and flow_id = ${flowId}`.execute(
      ctx.services.db,
    );
    expect(rows[0]!.n).toBe(36);
    expect(await duplicateSteps(accountId, flowId)).toBe(0);
    const fields = await ctx.services.db
      .selectFrom('people')
      .select(['tags', 'fields'])
      .where('accountId', '=', accountId)
      .where(
        'id',
        'in',
        people.map((p) => p.id),
      )
      .execute();
    for (const row of fields) {
      expect(row.tags).toContain('welcomed');
      expect(row.fields).toMatchObject({ leadScore: 5 });
    }
  });

  it("re-entry 'once' never enters a person again; 'after-days' enters again once the last entry is old enough", async () => {
    const { client, accountId } = await setup();
    const steps: StepSpec[] = [
      { name: 'trigger', op: '/added-tag', config: { tag: 'ping' } },
      { name: 'tag', op: '/add-tag', config: { tag: 'pinged' } },
    ];
    const once = await makeFlow(accountId, steps, [['trigger', 'tag']]);
    const again = await makeFlow(accountId, steps, [['trigger', 'tag']], {
      reentry: 'after-days',
      reentryDays: 3,
    });
    const ada = await person(client, 'Ada');
    const ping = async () => {
      await untagPerson(client, ada.id, 'ping');
      await tagPerson(client, ada.id, 'ping');
    };
    await tagPerson(client, ada.id, 'ping');
    await until(
      async () => {
        const r = [...(await runsOf(accountId, once.flowId)), ...(await runsOf(accountId, again.flowId))];
        return r.length === 2 && r.every((run) => run.status === 'done') && r;
      },
      { timeout: 20_000, message: 'first runs' },
    );
    await ping();
    expect(await runsOf(accountId, once.flowId)).toHaveLength(1);
    expect(await runsOf(accountId, again.flowId)).toHaveLength(1);
    // Three days later: the after-days flow takes the person again, the once flow never does.
    await sql`update flow_runs set entered_at = now() - interval '3 days 1 minute' where account_id = ${accountId} and person_id = ${ada.id}`.execute(
      ctx.services.db,
    );
    await ping();
    const runs = await until(
      async () => {
        const r = await runsOf(accountId, again.flowId);
        return r.length === 2 && r.every((run) => run.status === 'done') && r;
      },
      { timeout: 20_000, message: 'second entry done' },
    );
    expect(runs.map((r) => r.entry)).toEqual([1, 2]);
    expect(await runsOf(accountId, once.flowId)).toHaveLength(1);
  });

  it('the webhook trigger enters the person of a signed call, creating them when unknown; a bad signature is a 401', async () => {
    const { accountId } = await setup();
    const { flowId, ids } = await makeFlow(
      accountId,
      [
        { name: 'hook', op: '/webhook-trigger' },
        { name: 'tag', op: '/add-tag', config: { tag: 'hooked' } },
      ],
      [['hook', 'tag']],
    );
    const secret = (
      await ctx.services.db
        .selectFrom('flowSteps')
        .select('secret')
        .where('accountId', '=', accountId)
        .where('id', '=', ids.hook!)
        .executeTakeFirstOrThrow()
    ).secret!;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const anonymous = new Client(ctx.app, origin);
    const email = uniqueEmail('hooked');
    const body = JSON.stringify({ email, plan: 'pro' });
    const good = await anonymous.request('POST', `/v1/hooks/flows/${ids.hook}`, {
      rawBody: body,
      headers: { 'x-herald-signature': webhookBodySignature(secret, body) },
      origin: null,
    });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ entered: true });
    const created = await ctx.services.db
      .selectFrom('people')
      .select(['id', 'email'])
      .where('accountId', '=', accountId)
      .where('id', '=', good.body.personId)
      .executeTakeFirstOrThrow();
    expect(created.email).toBe(email);
    await until(
      async () => {
        const t = await tagsOf(accountId, created.id);
        return t.includes('hooked') && t;
      },
      { timeout: 20_000, message: 'hooked' },
    );

    const bad = await anonymous.request('POST', `/v1/hooks/flows/${ids.hook}`, {
      rawBody: body,
      headers: { 'x-herald-signature': webhookBodySignature('not-the-secret', body) },
      origin: null,
    });
    expect(bad.status).toBe(401);
    expect(bad.body.message ?? JSON.stringify(bad.body)).toContain(flowRunMessages.badSignature);
    const unsigned = await anonymous.request('POST', `/v1/hooks/flows/${ids.hook}`, {
      rawBody: body,
      origin: null,
    });
    expect(unsigned.status).toBe(401);
    // The signed URL (?token=) works without signing the body; the same person does not enter twice (re-entry once).
    const second = await anonymous.request(
      'POST',
      `/v1/hooks/flows/${ids.hook}?token=${webhookTriggerToken(secret, ids.hook!)}`,
      { rawBody: JSON.stringify({ personId: created.id }), origin: null },
    );
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ personId: created.id, entered: false });
    const noPerson = await anonymous.request(
      'POST',
      `/v1/hooks/flows/${ids.hook}?token=${webhookTriggerToken(secret, ids.hook!)}`,
      { rawBody: JSON.stringify({ name: 'x' }), origin: null },
    );
    expect(noPerson.status).toBe(400);
    expect(await runsOf(accountId, flowId)).toHaveLength(1);
  });
});

describe('flow runs: scheduled triggers', () => {
  it('a time trigger enters its segment once its moment has come, each person once', async () => {
    const { client, accountId } = await setup();
    const segment = await client.post('/v1/segments/', {
      name: 'Beta',
      conditions: [{ type: 'tag', operator: 'has', tag: 'beta' }],
    });
    const segmentId = segment.body.segment.id as number;
    const inBeta = [await person(client, 'Beta1', ['beta']), await person(client, 'Beta2', ['beta'])];
    const outside = await person(client, 'Outside');
    const { flowId } = await makeFlow(
      accountId,
      [
        {
          name: 'time',
          op: '/time',
          config: { at: new Date(Date.now() + 3_600_000).toISOString(), segment: { id: segmentId } },
        },
        { name: 'tag', op: '/add-tag', config: { tag: 'launched' } },
      ],
      [['time', 'tag']],
    );
    await runScheduledTriggers(ctx.services);
    expect(await runsOf(accountId, flowId)).toHaveLength(0);
    // The hour passes.
    await sql`update flow_steps set input_fields = jsonb_set(input_fields, '{properties,at,value}', to_jsonb(${new Date(Date.now() - 1000).toISOString()}::text))
      where account_id = ${accountId} and flow_id = ${flowId} and operation_key = '/time'`.execute(
      ctx.services.db,
    );
    await runScheduledTriggers(ctx.services);
    await runScheduledTriggers(ctx.services);
    const runs = await until(
      async () => {
        const r = await runsOf(accountId, flowId);
        return r.length === 2 && r.every((run) => run.status === 'done') && r;
      },
      { timeout: 20_000, message: 'time runs done' },
    );
    expect(runs.map((r) => r.personId).sort()).toEqual(inBeta.map((p) => p.id).sort());
    expect(await tagsOf(accountId, outside.id)).not.toContain('launched');
  });

  it('a date-field trigger enters people whose date (shifted) is today at its time in their zone, once', async () => {
    const { client, accountId } = await setup();
    const due = await person(client, 'Due');
    const later = await person(client, 'Later');
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await sql`update people set fields = fields || jsonb_build_object('renewal', ${today}::text, 'timezone', 'UTC') where account_id = ${accountId} and id = ${due.id}`.execute(
      ctx.services.db,
    );
    await sql`update people set fields = fields || jsonb_build_object('renewal', ${tomorrow}::text, 'timezone', 'UTC') where account_id = ${accountId} and id = ${later.id}`.execute(
      ctx.services.db,
    );
    const { flowId } = await makeFlow(
      accountId,
      [
        { name: 'date', op: '/dateFieldTrigger', config: { field: 'renewal', offsetDays: 0, time: '00:00' } },
        { name: 'tag', op: '/add-tag', config: { tag: 'renewing' } },
      ],
      [['date', 'tag']],
    );
    // Switched on yesterday, so today's midnight counts.
    await sql`update flows set activated_at = now() - interval '1 day' where account_id = ${accountId} and id = ${flowId}`.execute(
      ctx.services.db,
    );
    await runScheduledTriggers(ctx.services);
    await runScheduledTriggers(ctx.services);
    const runs = await until(
      async () => {
        const r = await runsOf(accountId, flowId);
        return r.length === 1 && r[0]!.status === 'done' && r;
      },
      { timeout: 20_000, message: 'date run done' },
    );
    expect(runs[0]!.personId).toBe(due.id);
  });
});
