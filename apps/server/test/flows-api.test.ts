import { flowApiMessages, flowLimits, flowMessages, type Flow, type Step } from '@herald/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { newFlow, addStep, link, email, sendFlow, activate, accountOf, fields, useFlowsContext, type Owner } from './flows-fixtures.ts';
import { Client, registerUser, uniqueEmail } from './helpers.ts';
import { webhookTriggerToken } from '../src/features/flows/flow-webhooks.service.ts';

const testContext = useFlowsContext();

describe('flows', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await registerUser(testContext().app);
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
    const stranger = await registerUser(testContext().app);
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
    const version = async () => (await testContext().services.db.selectFrom('flows').select(['version', 'lastSaved']).where('id', '=', flow.id).executeTakeFirstOrThrow());
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
    owner = await registerUser(testContext().app);
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
    const { secret } = await testContext().services.db.selectFrom('flowSteps').select('secret').where('id', '=', step.id).executeTakeFirstOrThrow();
    expect(secret).toMatch(/^[\w-]{40,}$/);
    expect(url.searchParams.get('token')).toBe(webhookTriggerToken(secret!, step.id));
    // The URL works: the inbound endpoint enters a person into the flow with it (the flow is off, so nobody enters).
    const person = await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('hook') });
    const call = await new Client(testContext().app).request('POST', `${url.pathname}${url.search}`, { rawBody: JSON.stringify({ personId: person.body.user.id }), origin: null });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ personId: person.body.user.id, entered: false });
    expect((await new Client(testContext().app).request('POST', `${url.pathname}?token=bad`, { rawBody: '{"personId":1}', origin: null })).status).toBeGreaterThanOrEqual(400);
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
    await testContext().services.db.insertInto('flowRuns').values([
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
    const run = await testContext().services.db
      .insertInto('flowRuns')
      .values({ accountId, flowId: own.id, personId: dee.body.user.id as number, stepId: end.id, status: 'waiting', wakeAt, seq: 2 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await testContext().services.db.insertInto('flowRunSteps').values([
      { accountId, runId: Number(run.id), seq: 1, flowId: own.id, stepId: trigger.id },
      { accountId, runId: Number(run.id), seq: 2, flowId: own.id, stepId: wait.id },
    ]).execute();
    expect((await owner.client.get(`/v1/integrations/${own.id}/people-counts`)).body.steps).toEqual({ [String(wait.id)]: 3 });
    expect((await owner.client.get(`/v1/steps/${wait.id}/people`)).body.people.map((p: { firstName: string }) => p.firstName)).toEqual(['Ann', 'Bob', 'Dee']);
    expect((await owner.client.get(`/v1/steps/${end.id}/people`)).body.people).toEqual([]);
  });
});
