import { encodeInputFields, flowMessages, flowRunMessages, stepTypeOf, type OperationKey } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { processBatch } from '../src/features/flows/flow-runs.service.ts';
import { runAdvanceFlow } from '../src/features/flows/flows.jobs.ts';
import { runScheduledTriggers } from '../src/features/flows/flow-triggers.service.ts';
import { runFlowWebhooks } from '../src/features/flows/flows.jobs.ts';
import { webhookBodySignature, webhookTriggerToken } from '../src/features/flows/flow-webhooks.service.ts';
import { newEmail } from './email-helpers.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

const origin = 'https://herald.test';
let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, MAIL_FROM: 'Herald <no-reply@herald.test>', PUBLIC_URL: origin });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

type Owner = Awaited<ReturnType<typeof registerUser>>;
const accountOf = (owner: Owner) => owner.account.accountId as number;

/** An account with an email whose sender is verified. */
async function setup() {
  const owner = await registerUser(ctx.app, { origin });
  const fromEmail = uniqueEmail('sender');
  const email = await owner.client.post('/v1/emails', newEmail({ fromEmail, subject: 'Welcome to the trial' }));
  expect(email.status).toBe(201);
  await ctx.services.db.insertInto('senderAddresses').values({ accountId: accountOf(owner), email: fromEmail, status: 'verified' }).execute();
  return { owner, client: owner.client, accountId: accountOf(owner), emailId: email.body.email.id as number };
}

interface StepSpec {
  name: string;
  op: OperationKey;
  config?: Record<string, unknown>;
}

/**
 * A flow stored as the flows API stores one (steps with the spec's inputFields tree, links by branch), switched on.
 * Returns the step ids by name.
 */
async function makeFlow(accountId: number, steps: StepSpec[], links: [string, string, string?][], options: { reentry?: 'once' | 'after-days'; reentryDays?: number; active?: boolean } = {}) {
  const db = ctx.services.db;
  const flow = await db
    .insertInto('flows')
    .values({ accountId, name: 'Test flow', reentry: options.reentry ?? 'once', reentryDays: options.reentryDays ?? null })
    .returning('id')
    .executeTakeFirstOrThrow();
  const flowId = Number(flow.id);
  const ids: Record<string, number> = {};
  for (const step of steps) {
    const row = await db
      .insertInto('flowSteps')
      .values({ accountId, flowId, type: stepTypeOf(step.op), operationKey: step.op, inputFields: JSON.stringify(encodeInputFields(step.config ?? {})) })
      .returning(['id'])
      .executeTakeFirstOrThrow();
    ids[step.name] = Number(row.id);
  }
  for (const [source, target, condition] of links) {
    await db.insertInto('flowLinks').values({ accountId, flowId, source: ids[source]!, target: ids[target]!, condition: condition ?? null }).execute();
  }
  if (options.active !== false) await db.updateTable('flows').set({ status: 'active', activatedAt: new Date() }).where('accountId', '=', accountId).where('id', '=', flowId).execute();
  return { flowId, ids };
}

async function person(client: Client, firstName: string, tags: string[] = []) {
  const created = await client.post('/v1/people/?source=manual', { email: uniqueEmail(firstName.toLowerCase()), firstName });
  expect(created.status).toBe(201);
  const user = created.body.user as { id: number; email: string };
  for (const tag of tags) expect((await client.post('/v1/tags/', { tag, id: user.id })).status).toBeLessThan(300);
  return user;
}

const tagPerson = async (client: Client, id: number, tag: string) => expect((await client.post('/v1/tags/', { tag, id })).status).toBeLessThan(300);
const untagPerson = async (client: Client, id: number, tag: string) => expect((await client.request('DELETE', '/v1/tags/', { body: { tag, id } })).status).toBeLessThan(300);

async function runsOf(accountId: number, flowId: number) {
  const { rows } = await sql<{ id: string; personId: string; status: string; entry: number; stepId: string | null; lastError: string | null; seq: number }>`
    select id, person_id as "personId", status, entry, step_id as "stepId", last_error as "lastError", seq from flow_runs
    where account_id = ${accountId} and flow_id = ${flowId} order by id`.execute(ctx.services.db);
  return rows.map((r) => ({ ...r, id: Number(r.id), personId: Number(r.personId), stepId: r.stepId === null ? null : Number(r.stepId) }));
}

const tagsOf = async (accountId: number, personId: number) =>
  (await ctx.services.db.selectFrom('people').select('tags').where('accountId', '=', accountId).where('id', '=', personId).executeTakeFirstOrThrow()).tags;

/** Executed steps recorded more than once for a run and step (the flows here have no loops). */
async function duplicateSteps(accountId: number, flowId: number) {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from (select run_id, step_id from flow_run_steps where account_id = ${accountId} and flow_id = ${flowId} group by 1, 2 having count(*) > 1) d`.execute(ctx.services.db);
  return rows[0]!.n;
}

describe('flow runs: triggers, steps and effects', () => {
  it('a tag-triggered flow sends its email once, through the pipeline, to the person tagged', async () => {
    const { client, accountId, emailId } = await setup();
    const { flowId, ids } = await makeFlow(accountId, [{ name: 'trigger', op: '/added-tag', config: { tag: 'trial' } }, { name: 'send', op: '/send', config: { email: { id: emailId } } }], [['trigger', 'send']]);
    const ada = await person(client, 'Ada');
    const other = await person(client, 'Other', ['customer']);
    await tagPerson(client, ada.id, 'trial');
    const mail = await smtp.waitFor(ada.email);
    expect(mail.subject).toBe('Welcome to the trial');
    const runs = await until(async () => { const r = await runsOf(accountId, flowId); return r.length === 1 && r[0]!.status === 'done' && r; }, { timeout: 20_000, message: 'run done' });
    expect(runs[0]).toMatchObject({ personId: ada.id, entry: 1, seq: 2, stepId: null });
    const deliveries = await ctx.services.db.selectFrom('deliveries').selectAll().where('accountId', '=', accountId).where('sourceKind', '=', 'flow').execute();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ sourceId: ids.send, personId: ada.id, flowRunId: runs[0]!.id, flowSeq: 2, emailId });
    await until(async () => { const s = (await ctx.services.db.selectFrom('deliveries').select('status').where('accountId', '=', accountId).where('sourceKind', '=', 'flow').executeTakeFirstOrThrow()).status; return s === 'sent' && s; }, { timeout: 20_000, message: 'delivery sent' });
    // The sent event names the flow and the step, as the metrics read them.
    const sent = await ctx.services.db.selectFrom('events').select('data').where('accountId', '=', accountId).where('type', '=', 'email').where('name', '=', 'sent').executeTakeFirstOrThrow();
    expect(sent.data).toMatchObject({ flowId, stepId: String(ids.send), emailId });
    expect(smtp.received.filter((m) => JSON.stringify(m.to).includes(ada.email))).toHaveLength(1);
    expect(smtp.received.some((m) => JSON.stringify(m.to).includes(other.email))).toBe(false);
    expect(await duplicateSteps(accountId, flowId)).toBe(0);
  });

  it('a flow that is off enters nobody, and switching it on does not enter people who matched before', async () => {
    const { client, accountId } = await setup();
    const { flowId } = await makeFlow(accountId, [{ name: 'trigger', op: '/added-tag', config: { tag: 'early' } }, { name: 'tag', op: '/add-tag', config: { tag: 'seen' } }], [['trigger', 'tag']], { active: false });
    const before = await person(client, 'Before', ['early']);
    await ctx.services.db.updateTable('flows').set({ status: 'active', activatedAt: new Date() }).where('accountId', '=', accountId).where('id', '=', flowId).execute();
    const after = await person(client, 'After');
    await tagPerson(client, after.id, 'early');
    await until(async () => { const t = await tagsOf(accountId, after.id); return t.includes('seen') && t; }, { timeout: 20_000, message: 'tag added' });
    expect((await runsOf(accountId, flowId)).map((r) => r.personId)).toEqual([after.id]);
    expect(await tagsOf(accountId, before.id)).not.toContain('seen');
  });

  it('a segment entry of N people starts N runs in one statement, each executing every step once', async () => {
    const { client, accountId } = await setup();
    const segment = await client.post('/v1/segments/', { name: 'VIPs', conditions: [{ type: 'tag', operator: 'has', tag: 'vip' }] });
    expect(segment.status).toBe(201);
    const segmentId = segment.body.segment.id as number;
    await until(async () => { const r = (await ctx.services.db.selectFrom('segments').select('refreshedAt').where('accountId', '=', accountId).where('id', '=', segmentId).executeTakeFirstOrThrow()).refreshedAt; return r !== null && r; }, { timeout: 20_000, message: 'segment built' });
    const { flowId } = await makeFlow(
      accountId,
      [{ name: 'trigger', op: '/entered-segment', config: { segment: { id: segmentId } } }, { name: 'tag', op: '/add-tag', config: { tag: 'welcomed' } }, { name: 'score', op: '/lead-score', config: { change: 5 } }],
      [['trigger', 'tag'], ['tag', 'score']],
    );
    const people = [];
    for (let i = 0; i < 12; i++) people.push(await person(client, `Vip${i}`));
    // One bulk statement tags all twelve; the membership refresh enters them together.
    await sql`update people set tags = array_append(tags, 'vip') where account_id = ${accountId} and id = any(${people.map((p) => p.id)}::bigint[])`.execute(ctx.services.db);
    const runs = await until(async () => { const r = await runsOf(accountId, flowId); return r.length === 12 && r.every((run) => run.status === 'done') && r; }, { timeout: 30_000, message: '12 runs done' });
    expect(new Set(runs.map((r) => r.personId))).toEqual(new Set(people.map((p) => p.id)));
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from flow_run_steps where account_id = ${accountId} and flow_id = ${flowId}`.execute(ctx.services.db);
    expect(rows[0]!.n).toBe(36);
    expect(await duplicateSteps(accountId, flowId)).toBe(0);
    const fields = await ctx.services.db.selectFrom('people').select(['tags', 'fields']).where('accountId', '=', accountId).where('id', 'in', people.map((p) => p.id)).execute();
    for (const row of fields) {
      expect(row.tags).toContain('welcomed');
      expect(row.fields).toMatchObject({ leadScore: 5 });
    }
  });

  it('a filter sends each person down its yes or no branch', async () => {
    const { client, accountId } = await setup();
    const { flowId } = await makeFlow(
      accountId,
      [
        { name: 'trigger', op: '/added-tag', config: { tag: 'lead' } },
        { name: 'filter', op: '/has-tag', config: { tag: 'vip' } },
        { name: 'yes', op: '/add-tag', config: { tag: 'went-yes' } },
        { name: 'no', op: '/add-tag', config: { tag: 'went-no' } },
      ],
      [['trigger', 'filter'], ['filter', 'yes', 'yes'], ['filter', 'no', 'no']],
    );
    const vip = await person(client, 'Vip', ['vip']);
    const plain = await person(client, 'Plain');
    await tagPerson(client, vip.id, 'lead');
    await tagPerson(client, plain.id, 'lead');
    await until(async () => { const r = await runsOf(accountId, flowId); return r.length === 2 && r.every((run) => run.status === 'done') && r; }, { timeout: 20_000, message: 'both done' });
    expect(await tagsOf(accountId, vip.id)).toEqual(expect.arrayContaining(['went-yes']));
    expect(await tagsOf(accountId, vip.id)).not.toContain('went-no');
    expect(await tagsOf(accountId, plain.id)).toEqual(expect.arrayContaining(['went-no']));
    expect(await tagsOf(accountId, plain.id)).not.toContain('went-yes');
  });

  it('a wait holds the run until its wake time, then the flow goes on (time moved by SQL)', async () => {
    const { client, accountId } = await setup();
    const { flowId, ids } = await makeFlow(
      accountId,
      [{ name: 'trigger', op: '/added-tag', config: { tag: 'signed-up' } }, { name: 'wait', op: '/delay-v2', config: { wait: { mode: 'duration', amount: 2, unit: 'days' } } }, { name: 'tag', op: '/add-tag', config: { tag: 'two-days-later' } }],
      [['trigger', 'wait'], ['wait', 'tag']],
    );
    const ada = await person(client, 'Ada');
    await tagPerson(client, ada.id, 'signed-up');
    const [waiting] = await until(async () => { const r = await runsOf(accountId, flowId); return r.length === 1 && r[0]!.status === 'waiting' && r; }, { timeout: 20_000, message: 'run waiting' });
    expect(waiting!.stepId).toBe(ids.tag);
    const { rows } = await sql<{ wakeAt: Date }>`select wake_at as "wakeAt" from flow_runs where account_id = ${accountId} and id = ${waiting!.id}`.execute(ctx.services.db);
    expect(rows[0]!.wakeAt.getTime()).toBeGreaterThan(Date.now() + 47 * 3_600_000);
    // Running the flow's job now changes nothing: the wait is not over.
    await runAdvanceFlow(ctx.services, { accountId, flowId });
    expect((await runsOf(accountId, flowId))[0]!.status).toBe('waiting');
    expect(await tagsOf(accountId, ada.id)).not.toContain('two-days-later');
    // Two days pass.
    await sql`update flow_runs set wake_at = now() - interval '1 second' where account_id = ${accountId} and id = ${waiting!.id}`.execute(ctx.services.db);
    await runAdvanceFlow(ctx.services, { accountId, flowId });
    expect((await runsOf(accountId, flowId))[0]!.status).toBe('done');
    expect(await tagsOf(accountId, ada.id)).toContain('two-days-later');
  });

  it("re-entry 'once' never enters a person again; 'after-days' enters again once the last entry is old enough", async () => {
    const { client, accountId } = await setup();
    const steps: StepSpec[] = [{ name: 'trigger', op: '/added-tag', config: { tag: 'ping' } }, { name: 'tag', op: '/add-tag', config: { tag: 'pinged' } }];
    const once = await makeFlow(accountId, steps, [['trigger', 'tag']]);
    const again = await makeFlow(accountId, steps, [['trigger', 'tag']], { reentry: 'after-days', reentryDays: 3 });
    const ada = await person(client, 'Ada');
    const ping = async () => {
      await untagPerson(client, ada.id, 'ping');
      await tagPerson(client, ada.id, 'ping');
    };
    await tagPerson(client, ada.id, 'ping');
    await until(async () => { const r = [...(await runsOf(accountId, once.flowId)), ...(await runsOf(accountId, again.flowId))]; return r.length === 2 && r.every((run) => run.status === 'done') && r; }, { timeout: 20_000, message: 'first runs' });
    await ping();
    expect(await runsOf(accountId, once.flowId)).toHaveLength(1);
    expect(await runsOf(accountId, again.flowId)).toHaveLength(1);
    // Three days later: the after-days flow takes the person again, the once flow never does.
    await sql`update flow_runs set entered_at = now() - interval '3 days 1 minute' where account_id = ${accountId} and person_id = ${ada.id}`.execute(ctx.services.db);
    await ping();
    const runs = await until(async () => { const r = await runsOf(accountId, again.flowId); return r.length === 2 && r.every((run) => run.status === 'done') && r; }, { timeout: 20_000, message: 'second entry done' });
    expect(runs.map((r) => r.entry)).toEqual([1, 2]);
    expect(await runsOf(accountId, once.flowId)).toHaveLength(1);
  });

  it('the webhook trigger enters the person of a signed call, creating them when unknown; a bad signature is a 401', async () => {
    const { accountId } = await setup();
    const { flowId, ids } = await makeFlow(accountId, [{ name: 'hook', op: '/webhook-trigger' }, { name: 'tag', op: '/add-tag', config: { tag: 'hooked' } }], [['hook', 'tag']]);
    const secret = (await ctx.services.db.selectFrom('flowSteps').select('secret').where('accountId', '=', accountId).where('id', '=', ids.hook!).executeTakeFirstOrThrow()).secret!;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const anonymous = new Client(ctx.app, origin);
    const email = uniqueEmail('hooked');
    const body = JSON.stringify({ email, plan: 'pro' });
    const good = await anonymous.request('POST', `/v1/hooks/flows/${ids.hook}`, { rawBody: body, headers: { 'x-herald-signature': webhookBodySignature(secret, body) }, origin: null });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ entered: true });
    const created = await ctx.services.db.selectFrom('people').select(['id', 'email']).where('accountId', '=', accountId).where('id', '=', good.body.personId).executeTakeFirstOrThrow();
    expect(created.email).toBe(email);
    await until(async () => { const t = await tagsOf(accountId, created.id); return t.includes('hooked') && t; }, { timeout: 20_000, message: 'hooked' });

    const bad = await anonymous.request('POST', `/v1/hooks/flows/${ids.hook}`, { rawBody: body, headers: { 'x-herald-signature': webhookBodySignature('not-the-secret', body) }, origin: null });
    expect(bad.status).toBe(401);
    expect(bad.body.message ?? JSON.stringify(bad.body)).toContain(flowRunMessages.badSignature);
    const unsigned = await anonymous.request('POST', `/v1/hooks/flows/${ids.hook}`, { rawBody: body, origin: null });
    expect(unsigned.status).toBe(401);
    // The signed URL (?token=) works without signing the body; the same person does not enter twice (re-entry once).
    const second = await anonymous.request('POST', `/v1/hooks/flows/${ids.hook}?token=${webhookTriggerToken(secret, ids.hook!)}`, { rawBody: JSON.stringify({ personId: created.id }), origin: null });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ personId: created.id, entered: false });
    const noPerson = await anonymous.request('POST', `/v1/hooks/flows/${ids.hook}?token=${webhookTriggerToken(secret, ids.hook!)}`, { rawBody: JSON.stringify({ name: 'x' }), origin: null });
    expect(noPerson.status).toBe(400);
    expect(await runsOf(accountId, flowId)).toHaveLength(1);
  });
});

describe('flow runs: notifications and webhooks', () => {
  it('notifies team members (never other addresses) with the person filled in', async () => {
    const { owner, client, accountId } = await setup();
    const stranger = uniqueEmail('stranger');
    const { flowId } = await makeFlow(
      accountId,
      [{ name: 'trigger', op: '/added-tag', config: { tag: 'hot-lead' } }, { name: 'notify', op: '/email-notification', config: { to: [owner.email, stranger], subject: 'Hot lead: {{ person.firstName }}', body: 'Call {{ person.firstName }} today.' } }],
      [['trigger', 'notify']],
    );
    const grace = await person(client, 'Grace');
    await tagPerson(client, grace.id, 'hot-lead');
    const mail = await smtp.waitFor(owner.email);
    expect(mail.subject).toBe('Hot lead: Grace');
    expect(mail.text).toContain('Call Grace today.');
    expect(mail.text).toContain(grace.email);
    await until(async () => { const r = await runsOf(accountId, flowId); return r[0]?.status === 'done' && r; }, { timeout: 20_000, message: 'run done' });
    await queueDrained(ctx.database.pool);
    expect(smtp.received.some((m) => JSON.stringify(m.to).includes(stranger))).toBe(false);
  });

  it('stores each webhook call once under its run and step key, and records a refused private address as failed', async () => {
    const { client, accountId } = await setup();
    const { flowId } = await makeFlow(
      accountId,
      [{ name: 'trigger', op: '/added-tag', config: { tag: 'sync' } }, { name: 'hook', op: '/send-webhook', config: { url: 'http://127.0.0.1:9/hook' } }],
      [['trigger', 'hook']],
    );
    const ada = await person(client, 'Ada');
    await tagPerson(client, ada.id, 'sync');
    const [run] = await until(async () => { const r = await runsOf(accountId, flowId); return r[0]?.status === 'done' && r; }, { timeout: 20_000, message: 'run done' });
    await runFlowWebhooks(ctx.services, { accountId });
    const calls = await until(async () => { const rows = await ctx.services.db.selectFrom('flowWebhookCalls').selectAll().where('accountId', '=', accountId).execute(); return rows.length === 1 && rows[0]!.status === 'failed' && rows; }, { timeout: 20_000, message: 'call recorded' });
    expect(calls[0]).toMatchObject({ idempotencyKey: `${run!.id}:2`, url: 'http://127.0.0.1:9/hook', personId: ada.id, lastError: flowMessages.webhookPrivate });
    expect(calls[0]!.payload).toMatchObject({ flowId, runId: run!.id, person: { id: ada.id, email: ada.email } });
  });
});

describe('flow runs: scheduled triggers', () => {
  it('a time trigger enters its segment once its moment has come, each person once', async () => {
    const { client, accountId } = await setup();
    const segment = await client.post('/v1/segments/', { name: 'Beta', conditions: [{ type: 'tag', operator: 'has', tag: 'beta' }] });
    const segmentId = segment.body.segment.id as number;
    const inBeta = [await person(client, 'Beta1', ['beta']), await person(client, 'Beta2', ['beta'])];
    const outside = await person(client, 'Outside');
    const { flowId } = await makeFlow(accountId, [{ name: 'time', op: '/time', config: { at: new Date(Date.now() + 3_600_000).toISOString(), segment: { id: segmentId } } }, { name: 'tag', op: '/add-tag', config: { tag: 'launched' } }], [['time', 'tag']]);
    await runScheduledTriggers(ctx.services);
    expect(await runsOf(accountId, flowId)).toHaveLength(0);
    // The hour passes.
    await sql`update flow_steps set input_fields = jsonb_set(input_fields, '{properties,at,value}', to_jsonb(${new Date(Date.now() - 1000).toISOString()}::text))
      where account_id = ${accountId} and flow_id = ${flowId} and operation_key = '/time'`.execute(ctx.services.db);
    await runScheduledTriggers(ctx.services);
    await runScheduledTriggers(ctx.services);
    const runs = await until(async () => { const r = await runsOf(accountId, flowId); return r.length === 2 && r.every((run) => run.status === 'done') && r; }, { timeout: 20_000, message: 'time runs done' });
    expect(runs.map((r) => r.personId).sort()).toEqual(inBeta.map((p) => p.id).sort());
    expect(await tagsOf(accountId, outside.id)).not.toContain('launched');
  });

  it('a date-field trigger enters people whose date (shifted) is today at its time in their zone, once', async () => {
    const { client, accountId } = await setup();
    const due = await person(client, 'Due');
    const later = await person(client, 'Later');
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await sql`update people set fields = fields || jsonb_build_object('renewal', ${today}::text, 'timezone', 'UTC') where account_id = ${accountId} and id = ${due.id}`.execute(ctx.services.db);
    await sql`update people set fields = fields || jsonb_build_object('renewal', ${tomorrow}::text, 'timezone', 'UTC') where account_id = ${accountId} and id = ${later.id}`.execute(ctx.services.db);
    const { flowId } = await makeFlow(accountId, [{ name: 'date', op: '/dateFieldTrigger', config: { field: 'renewal', offsetDays: 0, time: '00:00' } }, { name: 'tag', op: '/add-tag', config: { tag: 'renewing' } }], [['date', 'tag']]);
    // Switched on yesterday, so today's midnight counts.
    await sql`update flows set activated_at = now() - interval '1 day' where account_id = ${accountId} and id = ${flowId}`.execute(ctx.services.db);
    await runScheduledTriggers(ctx.services);
    await runScheduledTriggers(ctx.services);
    const runs = await until(async () => { const r = await runsOf(accountId, flowId); return r.length === 1 && r[0]!.status === 'done' && r; }, { timeout: 20_000, message: 'date run done' });
    expect(runs[0]!.personId).toBe(due.id);
  });
});

describe('flow runs: nothing twice, nothing lost', () => {
  /** Runs inserted as a trigger would, without waking the flow's job (the sweeper waits 10 s before it steps in). */
  async function enterQuietly(accountId: number, flowId: number, triggerId: number, personIds: number[]) {
    await sql`insert into flow_runs (account_id, flow_id, person_id, step_id, status, wake_at)
      select ${accountId}, ${flowId}, unnest(${personIds}::bigint[]), ${triggerId}, 'active', now()`.execute(ctx.services.db);
  }

  it('a batch that dies after writing its effects leaves nothing behind; the retry does every step once', async () => {
    const { client, accountId, emailId } = await setup();
    const { flowId, ids } = await makeFlow(
      accountId,
      [{ name: 'trigger', op: '/added-tag', config: { tag: 'never-used' } }, { name: 'tag', op: '/add-tag', config: { tag: 'crash-test' } }, { name: 'send', op: '/send', config: { email: { id: emailId } } }],
      [['trigger', 'tag'], ['tag', 'send']],
    );
    const people = [await person(client, 'One'), await person(client, 'Two'), await person(client, 'Three')];
    await enterQuietly(accountId, flowId, ids.trigger!, people.map((p) => p.id));
    const crash = new Error('worker died mid-batch');
    await expect(
      withAccount(ctx.services.db, accountId, async (db) => {
        const result = await processBatch(ctx.services, db, accountId, flowId, 100);
        expect(result.claimed).toBe(3);
        throw crash;
      }),
    ).rejects.toBe(crash);
    expect((await runsOf(accountId, flowId)).every((r) => r.status === 'active' && r.seq === 0)).toBe(true);
    expect(await tagsOf(accountId, people[0]!.id)).not.toContain('crash-test');
    expect(await ctx.services.db.selectFrom('deliveries').select('id').where('accountId', '=', accountId).where('sourceKind', '=', 'flow').execute()).toHaveLength(0);

    await runAdvanceFlow(ctx.services, { accountId, flowId });
    const runs = await runsOf(accountId, flowId);
    expect(runs.every((r) => r.status === 'done' && r.seq === 3)).toBe(true);
    expect(await duplicateSteps(accountId, flowId)).toBe(0);
    const deliveries = await ctx.services.db.selectFrom('deliveries').select(['personId']).where('accountId', '=', accountId).where('sourceKind', '=', 'flow').execute();
    expect(deliveries.map((d) => d.personId).sort()).toEqual(people.map((p) => p.id).sort());
    for (const p of people) await smtp.waitFor(p.email);
    for (const p of people) expect(smtp.received.filter((m) => JSON.stringify(m.to).includes(p.email))).toHaveLength(1);
  });

  it('an email deleted under an active flow fails its runs softly at the send step and warns on the flow', async () => {
    const { client, accountId, emailId } = await setup();
    const { flowId, ids } = await makeFlow(
      accountId,
      [{ name: 'trigger', op: '/added-tag', config: { tag: 'never-used' } }, { name: 'tag', op: '/add-tag', config: { tag: 'before-send' } }, { name: 'send', op: '/send', config: { email: { id: emailId } } }],
      [['trigger', 'tag'], ['tag', 'send']],
    );
    await ctx.services.db.deleteFrom('emails').where('accountId', '=', accountId).where('id', '=', emailId).execute();
    const ada = await person(client, 'Ada');
    await enterQuietly(accountId, flowId, ids.trigger!, [ada.id]);
    await runAdvanceFlow(ctx.services, { accountId, flowId });
    const [run] = await runsOf(accountId, flowId);
    expect(run).toMatchObject({ status: 'failed', stepId: ids.send, seq: 2, lastError: flowMessages.emailGone(emailId) });
    expect(await tagsOf(accountId, ada.id)).toContain('before-send');
    const flow = await ctx.services.db.selectFrom('flows').select('warnings').where('accountId', '=', accountId).where('id', '=', flowId).executeTakeFirstOrThrow();
    expect(flow.warnings).toEqual([flowMessages.emailGone(emailId)]);
  });
});
