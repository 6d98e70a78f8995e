import { flowApiMessages, flowMessages, type Flow, type Step } from '@herald/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  newFlow,
  addStep,
  link,
  email,
  sendFlow,
  activate,
  useFlowsContext,
  type Owner,
} from './flows-fixtures.ts';
import { registerUser } from './helpers.ts';

const testContext = useFlowsContext();

describe('flows', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await registerUser(testContext().app);
  });

  it('creates a flow named Unnamed Flow, lists it with its steps and links, names it, renames it', async () => {
    const flow = await newFlow(owner.client);
    expect(flow).toMatchObject({
      name: flowMessages.defaultName,
      status: 'deactivated-user',
      archived: false,
      steps: {},
      links: [],
      reentry: 'once',
    });
    expect(flow.warnings).toContain(flowMessages.noTrigger);
    const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: 'trial' });
    const action = await addStep(
      owner.client,
      flow.id,
      '/add-tag',
      { tag: 'welcomed' },
      { coordinates: { x: 10, y: 200 } },
    );
    const made = await link(owner.client, trigger.id, action.id);

    const list = await owner.client.get('/v1/integrations');
    expect(list.status).toBe(200);
    const listed = (list.body.integrations as Flow[]).find((f) => f.id === flow.id)!;
    expect(Object.keys(listed.steps).sort()).toEqual([String(trigger.id), String(action.id)].sort());
    expect(listed.steps[String(action.id)]).toMatchObject({
      type: 'action',
      operationKey: '/add-tag',
      coordinates: { x: 10, y: 200 },
      mustConfig: false,
      problem: null,
      linkConditions: null,
    });
    expect(listed.steps[String(trigger.id)]!.type).toBe('trigger');
    expect(listed.links).toEqual([
      { id: made.id, flowId: flow.id, source: trigger.id, target: action.id, condition: null },
    ]);
    expect(listed.warnings).toEqual([]);

    const names = await owner.client.get('/v1/integrations/names');
    expect(names.body.integrations).toContainEqual({ id: flow.id, name: flowMessages.defaultName });
    const renamed = await owner.client.patch(`/v1/integrations/${flow.id}`, {
      id: flow.id,
      name: 'Trial welcome',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ integration: { name: 'Trial welcome' }, message: null });
    expect((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.name).toBe(
      'Trial welcome',
    );
    expect(
      (await owner.client.patch(`/v1/integrations/${flow.id}`, { id: flow.id + 1, name: 'x' })).status,
    ).toBe(400);
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
    expect(copy).toMatchObject({
      name: 'Copy of Welcome',
      status: 'deactivated-user',
      reentry: 'after-days',
      reentryDays: 7,
      warnings: [],
    });
    expect(copy.id).not.toBe(flow.id);
    const steps = Object.values(copy.steps);
    expect(steps.map((s) => s.operationKey).sort()).toEqual(['/added-tag', '/send']);
    expect(steps.every((s) => s.id !== trigger.id && s.id !== send.id && s.flowId === copy.id)).toBe(true);
    const [newTrigger, newSend] = [
      steps.find((s) => s.type === 'trigger')!,
      steps.find((s) => s.type === 'action')!,
    ];
    expect(newSend.inputFields).toEqual(send.inputFields);
    expect(copy.links).toEqual([
      expect.objectContaining({ source: newTrigger.id, target: newSend.id, condition: null }),
    ]);
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
    expect(
      (await owner.client.patch(`/v1/integrations/${flow.id}`, { archived: true })).body.integration.archived,
    ).toBe(true);
    expect(
      (await owner.client.get('/v1/integrations')).body.integrations.map((f: Flow) => f.id),
    ).not.toContain(flow.id);
    expect(
      (await owner.client.get('/v1/integrations?archived=true')).body.integrations.map((f: Flow) => f.id),
    ).toContain(flow.id);
    expect(
      (await owner.client.get('/v1/integrations/names')).body.integrations.map((f: Flow) => f.id),
    ).not.toContain(flow.id);
    expect((await activate(owner.client, flow.id)).body.message).toBe(flowApiMessages.archivedNotActive);
  });

  it('sets the re-entry rule, and refuses after-days without days', async () => {
    const flow = await newFlow(owner.client);
    expect((await owner.client.patch(`/v1/integrations/${flow.id}`, { reentry: 'after-days' })).status).toBe(
      422,
    );
    const set = await owner.client.patch(`/v1/integrations/${flow.id}`, {
      reentry: 'after-days',
      reentryDays: 30,
    });
    expect(set.body.integration).toMatchObject({ reentry: 'after-days', reentryDays: 30 });
    expect((await owner.client.patch(`/v1/integrations/${flow.id}`, { reentryDays: 0 })).status).toBe(400);
  });

  it('bumps the version and the save time on every change of steps and links', async () => {
    const flow = await newFlow(owner.client);
    const version = async () =>
      await testContext()
        .services.db.selectFrom('flows')
        .select(['version', 'lastSaved'])
        .where('id', '=', flow.id)
        .executeTakeFirstOrThrow();
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
    const tree = async () =>
      (await owner.client.get('/v1/folders?folderType=flows')).body.folders as {
        id: number;
        root: boolean;
        childrenIds: { type: string; id: number }[];
      }[];
    const root = (await tree()).find((f) => f.root)!;
    expect(root.childrenIds).toContainEqual({ type: 'item', id: flow.id });
    const folder = (await owner.client.post('/v1/folders', { folderType: 'flows', name: 'Onboarding' })).body
      .folder;
    expect(
      (await owner.client.patch(`/v1/folders/${folder.id}`, { childrenIds: [{ type: 'item', id: flow.id }] }))
        .status,
    ).toBe(200);
    expect((await tree()).find((f) => f.root)!.childrenIds).not.toContainEqual({ type: 'item', id: flow.id });
    expect((await owner.client.request('DELETE', `/v1/folders/${folder.id}`)).status).toBeLessThan(300);
    const archived = (await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration;
    expect(archived).toMatchObject({ archived: true, status: 'deactivated-user' });
  });
});
