import { encodeInputFields, flowApiMessages, flowLimits, flowMessages, operationKeys, type Flow, type Step } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, newEmail } from './email-helpers.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';
import { webhookTriggerToken } from '../src/features/flows/flow-webhooks.service.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, MAIL_FROM: 'Herald <no-reply@herald.test>' });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

type Owner = Awaited<ReturnType<typeof registerUser>>;
const accountOf = (owner: Owner) => owner.account.accountId as number;
const fields = (config: Record<string, unknown>) => encodeInputFields(config);
const inADay = () => new Date(Date.now() + 86_400_000).toISOString();

async function newFlow(client: Client, name?: string): Promise<Flow> {
  const res = await client.post('/v1/integrations', name === undefined ? {} : { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.integration;
}

async function addStep(client: Client, flowId: number, operationKey: string, config?: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Step> {
  const res = await client.post('/v1/steps/', { flowId, operationKey, ...(config ? { inputFields: fields(config) } : {}), ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.step;
}

async function link(client: Client, source: number, target: number, condition?: string) {
  const res = await client.post('/v1/links/', { source, target, ...(condition !== undefined ? { condition } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.link as { id: number; source: number; target: number; condition: string | null };
}

/** An email whose sender is verified unless asked otherwise. */
async function email(owner: Owner, verified = true) {
  const fromEmail = uniqueEmail('sender');
  const res = await owner.client.post('/v1/emails', newEmail({ fromEmail }));
  expect(res.status).toBe(201);
  if (verified) await ctx.services.db.insertInto('senderAddresses').values({ accountId: accountOf(owner), email: fromEmail, status: 'verified' }).execute();
  return { id: res.body.email.id as number, fromEmail };
}

async function segment(owner: Owner, name = 'Customers') {
  const res = await owner.client.post('/v1/segments/', { name, conditions: [{ type: 'tag', operator: 'has', tag: 'customer' }] });
  expect(res.status).toBe(201);
  return res.body.segment.id as number;
}

/** A runnable flow: tag added → send email (→ nothing). */
async function sendFlow(owner: Owner, emailId: number) {
  const flow = await newFlow(owner.client, 'Welcome');
  const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: 'trial' });
  const send = await addStep(owner.client, flow.id, '/send', { email: { id: emailId } });
  await link(owner.client, trigger.id, send.id);
  return { flow, trigger, send };
}

const activate = (client: Client, id: number, status = 'active') => client.patch(`/v1/integrations/${id}`, { status });

describe('flows', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await registerUser(ctx.app);
  });

  it('creates a flow named Unnamed Flow, lists it with its steps and links, names it, renames it', async () => {
    const flow = await newFlow(owner.client);
    expect(flow).toMatchObject({ name: flowMessages.defaultName, status: 'deactivated-user', archived: false, steps: {}, links: [], reentry: 'once' });
    expect(flow.warnings).toContain(flowMessages.noTrigger);
    const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: 'trial' });
    const action = await addStep(owner.client, flow.id, '/add-tag', { tag: 'welcomed' }, { coordinates: { x: 10, y: 200 } });
    const made = await link(owner.client, trigger.id, action.id);

    const list = await owner.client.get('/v1/integrations');
    expect(list.status).toBe(200);
    const listed = (list.body.integrations as Flow[]).find((f) => f.id === flow.id)!;
    expect(Object.keys(listed.steps).sort()).toEqual([String(trigger.id), String(action.id)].sort());
    expect(listed.steps[String(action.id)]).toMatchObject({ type: 'action', operationKey: '/add-tag', coordinates: { x: 10, y: 200 }, mustConfig: false, problem: null, linkConditions: null });
    expect(listed.steps[String(trigger.id)]!.type).toBe('trigger');
    expect(listed.links).toEqual([{ id: made.id, flowId: flow.id, source: trigger.id, target: action.id, condition: null }]);
    expect(listed.warnings).toEqual([]);

    const names = await owner.client.get('/v1/integrations/names');
    expect(names.body.integrations).toContainEqual({ id: flow.id, name: flowMessages.defaultName });
    const renamed = await owner.client.patch(`/v1/integrations/${flow.id}`, { id: flow.id, name: 'Trial welcome' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ integration: { name: 'Trial welcome' }, message: null });
    expect((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.name).toBe('Trial welcome');
    expect((await owner.client.patch(`/v1/integrations/${flow.id}`, { id: flow.id + 1, name: 'x' })).status).toBe(400);
  });

  it('copies a flow with its steps, links and re-entry rule, switched off, with its own webhook secret', async () => {
    const { id: emailId } = await email(owner);
    const { flow, trigger, send } = await sendFlow(owner, emailId);
    await owner.client.patch(`/v1/integrations/${flow.id}`, { reentry: 'after-days', reentryDays: 7 });
    const hookFlow = await newFlow(owner.client, 'Hooked');
    const hook = await addStep(owner.client, hookFlow.id, '/webhook-trigger');
    expect((await activate(owner.client, flow.id)).status).toBe(200);
    const res = await owner.client.post(`/v1/integrations?source=${flow.id}`, {});
    expect(res.status).toBe(201);
    expect(res.body.message).toBe(flowMessages.copied);
    const copy = res.body.integration as Flow;
    expect(copy).toMatchObject({ name: 'Copy of Welcome', status: 'deactivated-user', reentry: 'after-days', reentryDays: 7, warnings: [] });
    expect(copy.id).not.toBe(flow.id);
    const steps = Object.values(copy.steps);
    expect(steps.map((s) => s.operationKey).sort()).toEqual(['/added-tag', '/send']);
    expect(steps.every((s) => s.id !== trigger.id && s.id !== send.id && s.flowId === copy.id)).toBe(true);
    const [newTrigger, newSend] = [steps.find((s) => s.type === 'trigger')!, steps.find((s) => s.type === 'action')!];
    expect(newSend.inputFields).toEqual(send.inputFields);
    expect(copy.links).toEqual([expect.objectContaining({ source: newTrigger.id, target: newSend.id, condition: null })]);
    expect((await activate(owner.client, copy.id)).status).toBe(200);

    const named = await owner.client.post(`/v1/integrations?source=${hookFlow.id}`, { name: 'Second hook' });
    expect(named.body.integration.name).toBe('Second hook');
    const copiedHook = Object.values(named.body.integration.steps as Record<string, Step>)[0]!;
    expect(copiedHook.outputFields?.url).not.toBe(hook.outputFields?.url);
    const stranger = await registerUser(ctx.app);
    expect((await stranger.client.post(`/v1/integrations?source=${flow.id}`, {})).status).toBe(404);
  });

  it('archives a flow (listed with ?archived=true) and keeps it out of the names', async () => {
    const flow = await newFlow(owner.client, 'Old');
    expect((await owner.client.patch(`/v1/integrations/${flow.id}`, { archived: true })).body.integration.archived).toBe(true);
    expect((await owner.client.get('/v1/integrations')).body.integrations.map((f: Flow) => f.id)).not.toContain(flow.id);
    expect((await owner.client.get('/v1/integrations?archived=true')).body.integrations.map((f: Flow) => f.id)).toContain(flow.id);
    expect((await owner.client.get('/v1/integrations/names')).body.integrations.map((f: Flow) => f.id)).not.toContain(flow.id);
    expect((await activate(owner.client, flow.id)).body.message).toBe(flowApiMessages.archivedNotActive);
  });

  it('sets the re-entry rule, and refuses after-days without days', async () => {
    const flow = await newFlow(owner.client);
    expect((await owner.client.patch(`/v1/integrations/${flow.id}`, { reentry: 'after-days' })).status).toBe(422);
    const set = await owner.client.patch(`/v1/integrations/${flow.id}`, { reentry: 'after-days', reentryDays: 30 });
    expect(set.body.integration).toMatchObject({ reentry: 'after-days', reentryDays: 30 });
    expect((await owner.client.patch(`/v1/integrations/${flow.id}`, { reentryDays: 0 })).status).toBe(400);
  });

  it('bumps the version and the save time on every change of steps and links', async () => {
    const flow = await newFlow(owner.client);
    const version = async () => (await ctx.services.db.selectFrom('flows').select(['version', 'lastSaved']).where('id', '=', flow.id).executeTakeFirstOrThrow());
    const v0 = await version();
    const step = await addStep(owner.client, flow.id, '/added-tag', { tag: 'a' });
    const v1 = await version();
    expect(v1.version).toBe(v0.version + 1);
    await owner.client.patch(`/v1/steps/${step.id}`, { coordinates: { x: 5, y: 5 } });
    expect((await version()).version).toBe(v1.version + 1);
    expect((await version()).lastSaved!.getTime()).toBeGreaterThanOrEqual(v1.lastSaved!.getTime());
  });
  it('lists flows as items of the flows folders, and archives (and switches off) the flows of a deleted folder', async () => {
    const { id: emailId } = await email(owner);
    const { flow } = await sendFlow(owner, emailId);
    expect((await activate(owner.client, flow.id)).status).toBe(200);
    const tree = async () => (await owner.client.get('/v1/folders?folderType=flows')).body.folders as { id: number; root: boolean; childrenIds: { type: string; id: number }[] }[];
    const root = (await tree()).find((f) => f.root)!;
    expect(root.childrenIds).toContainEqual({ type: 'item', id: flow.id });
    const folder = (await owner.client.post('/v1/folders', { folderType: 'flows', name: 'Onboarding' })).body.folder;
    expect((await owner.client.patch(`/v1/folders/${folder.id}`, { childrenIds: [{ type: 'item', id: flow.id }] })).status).toBe(200);
    expect((await tree()).find((f) => f.root)!.childrenIds).not.toContainEqual({ type: 'item', id: flow.id });
    expect((await owner.client.request('DELETE', `/v1/folders/${folder.id}`)).status).toBeLessThan(300);
    const archived = (await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration;
    expect(archived).toMatchObject({ archived: true, status: 'deactivated-user' });
  });
});

describe('steps', () => {
  let owner: Owner;
  let flow: Flow;
  beforeAll(async () => {
    owner = await registerUser(ctx.app);
    flow = await newFlow(owner.client);
  });

  it("answers 'Unknown step' for an operation or service outside the catalogue", async () => {
    for (const body of [{ operationKey: '/no-such-step' }, { operationKey: '/stripe-charge' }, { operationKey: '/send', serviceId: 'stripe' }]) {
      const res = await owner.client.post('/v1/steps/', { flowId: flow.id, ...body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.message).toBe(flowMessages.unknownStep);
    }
  });

  it('echoes the temporary id, marks an unset step mustConfig with its problem, and allows one trigger per flow', async () => {
    const res = await owner.client.post('/v1/steps/', { flowId: flow.id, tempId: 'tmp-42', operationKey: '/entered-segment' });
    expect(res.status).toBe(201);
    expect(res.body.tempId).toBe('tmp-42');
    expect(res.body.step).toMatchObject({ flowId: flow.id, type: 'trigger', serviceId: 'herald', mustConfig: true, coordinates: { x: 0, y: 0 }, peopleCount: 0 });
    expect(res.body.step.problem).toBe(flowMessages.unconfigured('Entered segment'));
    const second = await owner.client.post('/v1/steps/', { flowId: flow.id, operationKey: '/added-tag' });
    expect(second.status).toBe(422);
    expect(second.body.message).toBe(flowMessages.oneTrigger);
  });

  it('gives filters yes/no branches and an A/B test its variant names', async () => {
    const filter = await addStep(owner.client, flow.id, '/has-tag', { tag: 'vip' });
    expect(filter.linkConditions).toEqual(['yes', 'no']);
    const ab = await addStep(owner.client, flow.id, '/ab-test', { variants: [{ name: 'A', weight: 50 }, { name: 'B', weight: 50 }] });
    expect(ab.linkConditions).toEqual(['A', 'B']);
    expect(ab.type).toBe('action');
    expect((await addStep(owner.client, flow.id, '/end-flow')).linkConditions).toBeNull();
  });

  it('reads, edits and deletes a step (its links go too)', async () => {
    const own = await newFlow(owner.client);
    const trigger = await addStep(owner.client, own.id, '/added-tag', { tag: 'a' });
    const step = await addStep(owner.client, own.id, '/add-tag', { tag: 'b' });
    await link(owner.client, trigger.id, step.id);
    const read = await owner.client.get(`/v1/steps/${step.id}?refresh=false`);
    expect(read.status).toBe(200);
    expect(read.body.step.id).toBe(step.id);
    const edited = await owner.client.patch(`/v1/steps/${step.id}`, { id: step.id, inputFields: fields({ tag: 'c' }), position: 3 });
    expect(edited.status).toBe(200);
    expect(edited.body.step).toMatchObject({ position: 3, inputFields: { properties: { tag: { value: 'c' } } } });
    expect((await owner.client.patch(`/v1/steps/${step.id}`, { id: step.id + 1 })).status).toBe(400);
    const removed = await owner.client.request('DELETE', `/v1/steps/${step.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.removedLinks).toHaveLength(1);
    expect((await owner.client.get(`/v1/steps/${step.id}`)).status).toBe(404);
    expect((await owner.client.get(`/v1/integrations/${own.id}`)).body.integration.links).toEqual([]);
  });

  it(`refuses more than ${flowLimits.maxSteps} steps in a flow`, async () => {
    const big = await newFlow(owner.client);
    for (let i = 0; i < flowLimits.maxSteps; i += 1) {
      const res = await owner.client.post('/v1/steps/', { flowId: big.id, operationKey: '/add-tag', inputFields: fields({ tag: `t${i}` }) });
      expect(res.status).toBe(201);
    }
    const over = await owner.client.post('/v1/steps/', { flowId: big.id, operationKey: '/add-tag' });
    expect(over.status).toBe(422);
    expect(over.body.message).toBe(flowMessages.tooManySteps);
  }, 120_000);

  it('refuses settings over the size limit (422) and a 1 MB body (413)', async () => {
    const large = await owner.client.post('/v1/steps/', { flowId: flow.id, operationKey: '/add-tag', inputFields: fields({ tag: 'x'.repeat(flowLimits.maxInputFieldsChars + 1) }) });
    expect(large.status).toBe(422);
    expect(large.body.message).toBe(flowMessages.inputTooLarge);
    const huge = await owner.client.post('/v1/steps/', { flowId: flow.id, operationKey: '/add-tag', inputFields: fields({ tag: 'x'.repeat(1_100_000) }) });
    expect(huge.status).toBe(413);
    const step = await addStep(owner.client, flow.id, '/add-tag', { tag: 'small' });
    const grown = await owner.client.patch(`/v1/steps/${step.id}`, { inputFields: fields({ tag: 'y'.repeat(flowLimits.maxInputFieldsChars) }) });
    expect(grown.status).toBe(422);
  });

  it('refuses a webhook to loopback, link-local metadata, private and localhost addresses, on create and edit', async () => {
    for (const url of ['http://127.0.0.1/hook', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.8:8080/', 'http://[::1]/', 'http://2130706433/', 'http://localhost:3000/']) {
      const res = await owner.client.post('/v1/steps/', { flowId: flow.id, operationKey: '/send-webhook', inputFields: fields({ url }) });
      expect(res.status, url).toBe(422);
      expect(res.body.message).toBe(flowMessages.webhookPrivate);
    }
    const ok = await addStep(owner.client, flow.id, '/send-webhook', { url: 'https://93.184.216.34/hook' });
    expect(ok.mustConfig).toBe(false);
    const bad = await owner.client.patch(`/v1/steps/${ok.id}`, { inputFields: fields({ url: 'http://169.254.169.254/' }) });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(flowMessages.webhookPrivate);
  });

  it('gives a webhook trigger a signed inbound URL and never shows its secret', async () => {
    const own = await newFlow(owner.client);
    const res = await owner.client.post('/v1/steps/', { flowId: own.id, operationKey: '/webhook-trigger' });
    expect(res.status).toBe(201);
    const step = res.body.step as Step;
    const url = new URL(String(step.outputFields?.url));
    expect(url.pathname).toBe(`/v1/hooks/flows/${step.id}`);
    const { secret } = await ctx.services.db.selectFrom('flowSteps').select('secret').where('id', '=', step.id).executeTakeFirstOrThrow();
    expect(secret).toMatch(/^[\w-]{40,}$/);
    expect(url.searchParams.get('token')).toBe(webhookTriggerToken(secret!, step.id));
    // The URL works: the inbound endpoint enters a person into the flow with it (the flow is off, so nobody enters).
    const person = await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('hook') });
    const call = await new Client(ctx.app).request('POST', `${url.pathname}${url.search}`, { rawBody: JSON.stringify({ personId: person.body.user.id }), origin: null });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ personId: person.body.user.id, entered: false });
    expect((await new Client(ctx.app).request('POST', `${url.pathname}?token=bad`, { rawBody: '{"personId":1}', origin: null })).status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(res.body)).not.toContain(secret);
    expect(JSON.stringify((await owner.client.get(`/v1/integrations/${own.id}`)).body)).not.toContain(secret);
  });

  it('lists the people at a step and counts them per step', async () => {
    const own = await newFlow(owner.client);
    const trigger = await addStep(owner.client, own.id, '/added-tag', { tag: 'a' });
    const wait = await addStep(owner.client, own.id, '/delay-v2', { wait: { mode: 'duration', amount: 2, unit: 'days' } });
    const people: number[] = [];
    for (const firstName of ['Ann', 'Bob', 'Cy']) {
      const res = await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail(firstName.toLowerCase()), firstName });
      expect(res.status).toBe(201);
      people.push(res.body.user.id as number);
    }
    const accountId = accountOf(owner);
    const wakeAt = new Date(Date.now() + 86_400_000);
    await ctx.services.db.insertInto('flowRuns').values([
      { accountId, flowId: own.id, personId: people[0]!, stepId: wait.id, status: 'waiting', wakeAt },
      { accountId, flowId: own.id, personId: people[1]!, stepId: wait.id, status: 'waiting', wakeAt },
      { accountId, flowId: own.id, personId: people[2]!, stepId: null, status: 'done', finishedAt: new Date() },
    ]).execute();
    const counts = await owner.client.get(`/v1/integrations/${own.id}/people-counts`);
    expect(counts.body).toEqual({ steps: { [String(wait.id)]: 2 }, active: 2, entered: 3, completed: 1 });
    const at = await owner.client.get(`/v1/steps/${wait.id}/people?limit=1`);
    expect(at.status).toBe(200);
    expect(at.body.people).toHaveLength(1);
    expect(at.body.people[0]).toMatchObject({ firstName: 'Ann', wakeAt: wakeAt.toISOString() });
    expect((await owner.client.get(`/v1/steps/${wait.id}/people?limit=1000`)).status).toBe(400);
    expect((await owner.client.get(`/v1/steps/${wait.id}`)).body.step.peopleCount).toBe(2);
    expect((await owner.client.get(`/v1/steps/${trigger.id}/people`)).body.people).toEqual([]);

    // As the engine leaves a waiting run: pointing past the wait, its last executed step (seq) the wait itself.
    const end = await addStep(owner.client, own.id, '/end-flow', {});
    const dee = await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('dee'), firstName: 'Dee' });
    const run = await ctx.services.db
      .insertInto('flowRuns')
      .values({ accountId, flowId: own.id, personId: dee.body.user.id as number, stepId: end.id, status: 'waiting', wakeAt, seq: 2 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await ctx.services.db.insertInto('flowRunSteps').values([
      { accountId, runId: Number(run.id), seq: 1, flowId: own.id, stepId: trigger.id },
      { accountId, runId: Number(run.id), seq: 2, flowId: own.id, stepId: wait.id },
    ]).execute();
    expect((await owner.client.get(`/v1/integrations/${own.id}/people-counts`)).body.steps).toEqual({ [String(wait.id)]: 3 });
    expect((await owner.client.get(`/v1/steps/${wait.id}/people`)).body.people.map((p: { firstName: string }) => p.firstName)).toEqual(['Ann', 'Bob', 'Dee']);
    expect((await owner.client.get(`/v1/steps/${end.id}/people`)).body.people).toEqual([]);
  });
});

describe('links', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await registerUser(ctx.app);
  });

  it('links a filter by branch: a branch is required, known, and linked once; a pair is linked once', async () => {
    const flow = await newFlow(owner.client);
    const filter = await addStep(owner.client, flow.id, '/has-tag', { tag: 'vip' });
    const a = await addStep(owner.client, flow.id, '/add-tag', { tag: 'a' });
    const b = await addStep(owner.client, flow.id, '/add-tag', { tag: 'b' });
    const none = await owner.client.post('/v1/links/', { source: filter.id, target: a.id });
    expect(none.status).toBe(422);
    expect(none.body.message).toBe(flowApiMessages.conditionRequired);
    const maybe = await owner.client.post('/v1/links/', { source: filter.id, target: a.id, condition: 'maybe' });
    expect(maybe.body.message).toBe(flowMessages.unknownBranch('maybe'));
    await link(owner.client, filter.id, a.id, 'yes');
    const taken = await owner.client.post('/v1/links/', { source: filter.id, target: b.id, condition: 'yes' });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe(flowMessages.branchTaken('yes'));
    const pair = await owner.client.post('/v1/links/', { source: filter.id, target: a.id, condition: 'no' });
    expect(pair.status).toBe(409);
    expect(pair.body.message).toBe(flowMessages.linkExists);
    await link(owner.client, filter.id, b.id, 'no');
    const plain = await owner.client.post('/v1/links/', { source: a.id, target: b.id, condition: 'yes' });
    expect(plain.body.message).toBe(flowMessages.unknownBranch('yes'));
  });

  it('refuses a link into a trigger, to itself, and to a step of another flow', async () => {
    const flow = await newFlow(owner.client);
    const other = await newFlow(owner.client);
    const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: 'a' });
    const step = await addStep(owner.client, flow.id, '/add-tag', { tag: 'b' });
    const elsewhere = await addStep(owner.client, other.id, '/add-tag', { tag: 'c' });
    expect((await owner.client.post('/v1/links/', { source: step.id, target: trigger.id })).body.message).toBe(flowMessages.linkToTrigger);
    expect((await owner.client.post('/v1/links/', { source: step.id, target: step.id })).body.message).toBe(flowMessages.linkSelf);
    const across = await owner.client.post('/v1/links/', { source: step.id, target: elsewhere.id });
    expect(across.status).toBe(422);
    expect(across.body.message).toBe(flowMessages.linkToOtherFlow);
  });

  it('refuses a loop without a wait and allows one broken by a wait', async () => {
    const flow = await newFlow(owner.client);
    const a = await addStep(owner.client, flow.id, '/add-tag', { tag: 'a' });
    const b = await addStep(owner.client, flow.id, '/remove-tag', { tag: 'a' });
    await link(owner.client, a.id, b.id);
    const second = await addStep(owner.client, flow.id, '/add-tag', { tag: 'second' });
    const taken = await owner.client.post('/v1/links/', { source: a.id, target: second.id });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe(flowApiMessages.nextTaken);
    const loop = await owner.client.post('/v1/links/', { source: b.id, target: a.id });
    expect(loop.status).toBe(422);
    expect(loop.body.message).toBe(flowMessages.cycleWithoutWait);

    const wait = await addStep(owner.client, flow.id, '/delay-v2', { wait: { mode: 'duration', amount: 1, unit: 'days' } });
    const c = await addStep(owner.client, flow.id, '/add-tag', { tag: 'c' });
    await link(owner.client, c.id, wait.id);
    const filter = await addStep(owner.client, flow.id, '/has-tag', { tag: 'again' });
    await link(owner.client, wait.id, filter.id);
    await link(owner.client, filter.id, c.id, 'yes');
    // The wait that breaks the loop cannot become one that does not.
    const shortened = await owner.client.patch(`/v1/steps/${wait.id}`, { inputFields: fields({ wait: { mode: 'duration', amount: 0, unit: 'minutes' } }) });
    expect(shortened.status).toBe(422);
    expect(shortened.body.message).toBe(flowMessages.cycleWithoutWait);
    // Settings half typed are kept (the step shows it is not set up) rather than refused as a loop.
    expect((await owner.client.patch(`/v1/steps/${wait.id}`, { inputFields: fields({ wait: { mode: 'duration', unit: 'hours' } }) })).body.step.mustConfig).toBe(true);
    const longer = await owner.client.patch(`/v1/steps/${wait.id}`, { inputFields: fields({ wait: { mode: 'duration', amount: 2, unit: 'hours' } }) });
    expect(longer.status).toBe(200);
  });

  it('removes a link by id and by its two steps', async () => {
    const flow = await newFlow(owner.client);
    const a = await addStep(owner.client, flow.id, '/add-tag', { tag: 'a' });
    const b = await addStep(owner.client, flow.id, '/add-tag', { tag: 'b' });
    const c = await addStep(owner.client, flow.id, '/add-tag', { tag: 'c' });
    const ab = await link(owner.client, a.id, b.id);
    await link(owner.client, b.id, c.id);
    expect((await owner.client.request('DELETE', `/v1/links/${ab.id}`)).status).toBe(200);
    expect((await owner.client.request('DELETE', `/v1/links/${ab.id}`)).status).toBe(404);
    const pair = await owner.client.request('DELETE', `/v1/links/${b.id}/${c.id}`);
    expect(pair.status).toBe(200);
    expect(pair.body.link).toMatchObject({ source: b.id, target: c.id });
    expect((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.links).toEqual([]);
  });

  it('drops the links of A/B variants that were removed', async () => {
    const flow = await newFlow(owner.client);
    const ab = await addStep(owner.client, flow.id, '/ab-test', { variants: [{ name: 'A', weight: 50 }, { name: 'B', weight: 50 }] });
    const a = await addStep(owner.client, flow.id, '/add-tag', { tag: 'a' });
    const b = await addStep(owner.client, flow.id, '/add-tag', { tag: 'b' });
    await link(owner.client, ab.id, a.id, 'A');
    await link(owner.client, ab.id, b.id, 'B');
    const edited = await owner.client.patch(`/v1/steps/${ab.id}`, { inputFields: fields({ variants: [{ name: 'A', weight: 70 }, { name: 'C', weight: 30 }] }) });
    expect(edited.body.step.linkConditions).toEqual(['A', 'C']);
    expect((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.links.map((l: { condition: string }) => l.condition)).toEqual(['A']);
  });
});

describe('activation', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await registerUser(ctx.app);
  });

  it("switches a valid flow on ('on' accepted) and off, with the spec's messages", async () => {
    const { id: emailId } = await email(owner);
    const { flow } = await sendFlow(owner, emailId);
    const on = await activate(owner.client, flow.id, 'on');
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toMatchObject({ integration: { status: 'active' }, message: flowMessages.activated });
    const row = await ctx.services.db.selectFrom('flows').select('activatedAt').where('id', '=', flow.id).executeTakeFirstOrThrow();
    expect(row.activatedAt).not.toBeNull();
    const off = await activate(owner.client, flow.id, 'deactivated-user');
    expect(off.body).toMatchObject({ integration: { status: 'deactivated-user' }, message: flowMessages.deactivated });
  });

  it('refuses a send step whose sender is not verified', async () => {
    const { id: emailId, fromEmail } = await email(owner, false);
    const { flow } = await sendFlow(owner, emailId);
    const res = await activate(owner.client, flow.id);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(flowMessages.unverifiedAddress(fromEmail));
    expect((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.status).toBe('deactivated-user');
  });

  it('lets a test account send from any address', async () => {
    const tester = await registerUser(ctx.app);
    await ctx.services.db.updateTable('accounts').set({ testAccount: true }).where('id', '=', accountOf(tester)).execute();
    const { id: emailId } = await email(tester, false);
    const { flow } = await sendFlow(tester, emailId);
    expect((await activate(tester.client, flow.id)).status).toBe(200);
  });

  it('refuses an unconfigured step, a dangling branch, no trigger, and a trigger leading nowhere', async () => {
    const flow = await newFlow(owner.client);
    const empty = await activate(owner.client, flow.id);
    expect(empty.body).toMatchObject({ message: flowMessages.noTrigger, extra: { warnings: [flowMessages.noTrigger] } });
    const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: 'a' });
    expect((await activate(owner.client, flow.id)).body.message).toBe(flowMessages.triggerHasNoNext);
    const send = await addStep(owner.client, flow.id, '/send');
    await link(owner.client, trigger.id, send.id);
    const unset = await activate(owner.client, flow.id);
    expect(unset.status).toBe(422);
    expect(unset.body.message).toBe(flowMessages.unconfigured('Send email'));
    expect(send).toMatchObject({ mustConfig: true, problem: flowMessages.noEmail });

    const other = await newFlow(owner.client);
    const t2 = await addStep(owner.client, other.id, '/added-tag', { tag: 'a' });
    const filter = await addStep(owner.client, other.id, '/has-tag', { tag: 'vip' });
    const end = await addStep(owner.client, other.id, '/end-flow');
    await link(owner.client, t2.id, filter.id);
    await link(owner.client, filter.id, end.id, 'yes');
    expect((await activate(owner.client, other.id)).body.message).toBe(flowMessages.danglingBranch('Has tag', 'no'));
  });

  it('refuses a wait of −1 days or 100 years by its settings', async () => {
    for (const amount of [-1, 36_500]) {
      const flow = await newFlow(owner.client);
      const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: 'a' });
      const wait = await addStep(owner.client, flow.id, '/delay-v2', { wait: { mode: 'duration', amount, unit: 'days' } });
      await link(owner.client, trigger.id, wait.id);
      expect(wait.mustConfig).toBe(true);
      const res = await activate(owner.client, flow.id);
      expect(res.status, String(amount)).toBe(422);
      expect(res.body.message).toBe(flowMessages.unconfigured('Wait'));
    }
  });

  it('refuses a time trigger without a date or in the past', async () => {
    const flow = await newFlow(owner.client);
    const trigger = await addStep(owner.client, flow.id, '/time');
    const end = await addStep(owner.client, flow.id, '/end-flow');
    await link(owner.client, trigger.id, end.id);
    expect((await activate(owner.client, flow.id)).body.message).toBe(flowMessages.noDateTime);
    await owner.client.patch(`/v1/steps/${trigger.id}`, { inputFields: fields({ at: new Date(Date.now() - 60_000).toISOString() }) });
    expect((await activate(owner.client, flow.id)).body.message).toBe(flowMessages.timeInPast);
    await owner.client.patch(`/v1/steps/${trigger.id}`, { inputFields: fields({ at: inADay() }) });
    expect((await activate(owner.client, flow.id)).status).toBe(200);
  });

  it('refuses a segment or email that no longer exists, and shows it on the step', async () => {
    const segmentId = await segment(owner, 'Engaged');
    const { id: emailId } = await email(owner);
    const flow = await newFlow(owner.client);
    const trigger = await addStep(owner.client, flow.id, '/entered-segment', { segment: { id: segmentId } });
    const send = await addStep(owner.client, flow.id, '/send', { email: { id: emailId } });
    await link(owner.client, trigger.id, send.id);
    expect((await owner.client.request('DELETE', `/v1/segments/${segmentId}`)).status).toBe(200);
    const res = await activate(owner.client, flow.id);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(flowMessages.segmentGone(segmentId));
    const shown = (await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration as Flow;
    expect(shown.steps[String(trigger.id)]!.problem).toBe(flowMessages.segmentGone(segmentId));
    expect(shown.warnings).toContain(flowMessages.segmentGone(segmentId));
  });

  it('asks to confirm changes to the settings of an active flow and to deleting its steps', async () => {
    const { id: emailId } = await email(owner);
    const { flow, send } = await sendFlow(owner, emailId);
    expect((await activate(owner.client, flow.id)).status).toBe(200);
    const moved = await owner.client.patch(`/v1/steps/${send.id}`, { coordinates: { x: 100, y: 100 } });
    expect(moved.status).toBe(200);
    const other = await email(owner);
    const unconfirmed = await owner.client.patch(`/v1/steps/${send.id}`, { inputFields: fields({ email: { id: other.id } }) });
    expect(unconfirmed.status).toBe(409);
    expect(unconfirmed.body.message).toBe(flowMessages.confirmActiveEdit);
    const confirmed = await owner.client.patch(`/v1/steps/${send.id}`, { inputFields: fields({ email: { id: other.id } }), confirmActiveEdit: true });
    expect(confirmed.status).toBe(200);
    expect((await owner.client.request('DELETE', `/v1/steps/${send.id}`)).status).toBe(409);
    expect((await owner.client.request('DELETE', `/v1/steps/${send.id}?confirmActiveEdit=true`)).status).toBe(200);
  });

  it('switches an active flow off when it is archived', async () => {
    const { id: emailId } = await email(owner);
    const { flow } = await sendFlow(owner, emailId);
    expect((await activate(owner.client, flow.id)).status).toBe(200);
    const archived = await owner.client.patch(`/v1/integrations/${flow.id}`, { archived: true });
    expect(archived.body).toMatchObject({ integration: { archived: true, status: 'deactivated-user' }, message: flowMessages.deactivated });
  });
});

describe('attached resources and the catalogue', () => {
  it("lists the emails, segments and fields a flow's steps use", async () => {
    const owner = await registerUser(ctx.app);
    const segmentId = await segment(owner, 'Engaged');
    const { id: emailId } = await email(owner);
    const field = await owner.client.post('/v1/fields', { items: [{ name: 'plan', title: 'Plan', type: 'string' }] });
    expect(field.status, JSON.stringify(field.body)).toBeLessThan(300);
    const flow = await newFlow(owner.client);
    await addStep(owner.client, flow.id, '/entered-segment', { segment: { id: segmentId } });
    await addStep(owner.client, flow.id, '/send', { email: { id: emailId } });
    await addStep(owner.client, flow.id, '/change-field', { field: 'plan', value: 'pro' });
    const emails = await owner.client.get(`/v1/integrations/${flow.id}/emails`);
    expect(emails.body.emails).toEqual([expect.objectContaining({ id: emailId, name: 'Welcome' })]);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/segments`)).body.segments).toEqual([{ id: segmentId, name: 'Engaged' }]);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/attached`)).body).toEqual({
      email: [{ id: emailId, name: 'Welcome' }],
      field: [{ name: 'plan', title: 'Plan' }],
      segment: [{ id: segmentId, name: 'Engaged' }],
    });
  });

  it('lists every native operation with its JSON Schema', async () => {
    const owner = await registerUser(ctx.app);
    const res = await owner.client.get('/v1/services');
    expect(res.status).toBe(200);
    expect(res.body.services).toEqual([{ id: 'herald', name: 'herald', humanName: 'Herald', schema: {} }]);
    expect(res.body.steps.map((s: { operationKey: string }) => s.operationKey).sort()).toEqual([...operationKeys].sort());
    const send = res.body.steps.find((s: { operationKey: string }) => s.operationKey === '/send');
    expect(send).toMatchObject({ type: 'action', serviceId: 'herald', isHidden: false, mustConfig: { configStep: true } });
    expect(send.inputSchema).toMatchObject({ type: 'object', required: ['email'] });
    expect(res.body.steps.find((s: { operationKey: string }) => s.operationKey === '/end-flow').mustConfig.configStep).toBe(false);
  });
});

describe('access', () => {
  it('opens a flow read-only with its share token, without the webhook trigger URL, and only that flow', async () => {
    const owner = await registerUser(ctx.app);
    const { id: emailId } = await email(owner);
    const flow = await newFlow(owner.client, 'Shared');
    const hook = await addStep(owner.client, flow.id, '/webhook-trigger');
    const send = await addStep(owner.client, flow.id, '/send', { email: { id: emailId } });
    await link(owner.client, hook.id, send.id);
    const other = await newFlow(owner.client, 'Private');
    const token = (await owner.client.get(`/v1/integrations/${flow.id}/share-token`)).body.shareToken as string;
    expect(token).toBeTruthy();
    const anonymous = new Client(ctx.app);
    const q = `read-only-auth=${encodeURIComponent(token)}`;
    const seen = await anonymous.get(`/v1/integrations/${flow.id}?${q}`);
    expect(seen.status).toBe(200);
    expect(seen.body.integration.name).toBe('Shared');
    expect(seen.body.integration.steps[String(hook.id)].outputFields).toBeNull();
    expect((await anonymous.get(`/v1/integrations/${flow.id}/emails?${q}`)).body.emails.map((e: { id: number }) => e.id)).toEqual([emailId]);
    expect((await anonymous.get(`/v1/integrations/${flow.id}/attached?${q}`)).status).toBe(200);
    expect((await anonymous.get(`/v1/integrations/${other.id}?${q}`)).status).toBe(403);
    expect((await anonymous.get(`/v1/integrations/${flow.id}?read-only-auth=${encodeURIComponent(token.slice(0, -2))}`)).status).toBe(403);
    expect((await anonymous.get(`/v1/integrations/${flow.id}`)).status).toBe(401);
    // The token reads; it changes nothing.
    expect((await anonymous.patch(`/v1/integrations/${flow.id}?${q}`, { name: 'x' })).status).toBe(401);
    // A stranger's session with the token still reads only the shared flow.
    const stranger = await registerUser(ctx.app);
    expect((await stranger.client.get(`/v1/integrations/${flow.id}?${q}`)).body.integration.id).toBe(flow.id);
    expect((await stranger.client.get(`/v1/integrations/${flow.id}`)).status).toBe(404);
  });

  it("answers 404 for another account's flow, step and link", async () => {
    const owner = await registerUser(ctx.app);
    const stranger = await registerUser(ctx.app);
    const flow = await newFlow(owner.client);
    const a = await addStep(owner.client, flow.id, '/added-tag', { tag: 'a' });
    const b = await addStep(owner.client, flow.id, '/add-tag', { tag: 'b' });
    const ab = await link(owner.client, a.id, b.id);
    const theirs = await newFlow(stranger.client);
    const theirStep = await addStep(stranger.client, theirs.id, '/add-tag', { tag: 'x' });
    const probes: [string, string, unknown?][] = [
      ['GET', `/v1/integrations/${flow.id}`],
      ['PATCH', `/v1/integrations/${flow.id}`, { name: 'mine' }],
      ['GET', `/v1/integrations/${flow.id}/people-counts`],
      ['GET', `/v1/integrations/${flow.id}/attached`],
      ['GET', `/v1/steps/${a.id}`],
      ['PATCH', `/v1/steps/${a.id}`, { coordinates: { x: 1, y: 1 } }],
      ['DELETE', `/v1/steps/${b.id}`],
      ['GET', `/v1/steps/${a.id}/people`],
      ['POST', '/v1/steps/', { flowId: flow.id, operationKey: '/add-tag' }],
      ['POST', '/v1/links/', { source: theirStep.id, target: b.id }],
      ['POST', '/v1/links/', { source: b.id, target: theirStep.id }],
      ['DELETE', `/v1/links/${ab.id}`],
      ['DELETE', `/v1/links/${a.id}/${b.id}`],
    ];
    for (const [method, url, body] of probes) {
      const res = await stranger.client.request(method as 'GET', url, body === undefined ? {} : { body });
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    expect((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.links).toHaveLength(1);
    expect((await owner.client.get('/v1/integrations/999999999')).status).toBe(404);
    expect((await owner.client.get('/v1/steps/abc')).status).toBe(400);
  });

  it('needs flows:read to look and flows:write to change (403)', async () => {
    const owner = await registerUser(ctx.app);
    const flow = await newFlow(owner.client);
    const step = await addStep(owner.client, flow.id, '/add-tag', { tag: 'a' });
    const reader = await addMember(ctx, smtp, owner, ['emails:read', 'flows:read']);
    expect((await reader.get('/v1/integrations')).status).toBe(200);
    expect((await reader.get(`/v1/steps/${step.id}`)).status).toBe(200);
    expect((await reader.get('/v1/services')).status).toBe(200);
    const writes: [string, string, unknown?][] = [
      ['POST', '/v1/integrations', {}],
      ['PATCH', `/v1/integrations/${flow.id}`, { name: 'x' }],
      ['POST', '/v1/steps/', { flowId: flow.id, operationKey: '/add-tag' }],
      ['PATCH', `/v1/steps/${step.id}`, { coordinates: { x: 1, y: 1 } }],
      ['DELETE', `/v1/steps/${step.id}`],
      ['POST', '/v1/links/', { source: step.id, target: step.id }],
      ['DELETE', `/v1/links/${step.id}`],
    ];
    for (const [method, url, body] of writes) {
      expect((await reader.request(method as 'GET', url, body === undefined ? {} : { body })).status, `${method} ${url}`).toBe(403);
    }
    const outsider = await addMember(ctx, smtp, owner, ['people:read']);
    expect((await outsider.get('/v1/integrations')).status).toBe(403);
    expect((await outsider.get(`/v1/steps/${step.id}`)).status).toBe(403);
  });
});
