import {
  bodyIdMismatch,
  encodeInputFields,
  flowApiMessages,
  flowBodyMessages,
  flowMessages,
  type Flow,
  type Step,
} from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRows } from './account-rows.ts';
import { createTestContext, registerUser, type Client, type TestContext } from './helpers.ts';

/**
 * Flows, steps and links sent whole, as a client that serialises its state sends them (docs/api.md,
 * "Serialized entity bodies"): read-only and client-only fields are ignored, contradicting ones are 400, and a
 * refused body leaves the database as it was.
 */
let ctx: TestContext;
let client: Client;
let accountId: number;
beforeAll(async () => {
  ctx = await createTestContext();
  const owner = await registerUser(ctx.app);
  client = owner.client;
  accountId = owner.account.accountId as number;
});
afterAll(() => ctx.close());

/** Every flow, step and link row of the account, to show that a refused body changed nothing. */
const rows = () => accountRows(ctx, accountId, { flows: 'flows', steps: 'flow_steps', links: 'flow_links' });

async function expectRefused(
  request: Promise<{ status: number; body: { message: string } }>,
  message: string | RegExp,
) {
  const before = await rows();
  const res = await request;
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  if (typeof message === 'string') expect(res.body.message).toBe(message);
  else expect(res.body.message).toMatch(message);
  expect(await rows()).toEqual(before);
}

async function newFlow(name = 'Serialized'): Promise<Flow> {
  const res = await client.post('/v1/integrations', { name });
  expect(res.status).toBe(201);
  return res.body.integration;
}

/** A step as the spec's client holds it: every field of the Step entity, the server's and its own. */
function clientStep(flowId: number, overrides: Record<string, unknown> = {}) {
  return {
    id: 'tmp-7',
    tempId: 'tmp-7',
    flowId,
    type: 'action',
    serviceId: 'herald',
    operationKey: '/add-tag',
    inputFields: encodeInputFields({ tag: 'vip' }),
    outputFields: null,
    coordinates: { x: 120, y: 240 },
    position: null,
    metrics: { sent: 0, opened: 0, clicked: 0 },
    peopleCounts: { now: 0 },
    ephemeralData: { drawerOpen: true },
    pendingUpdate: false,
    pendingDelete: false,
    isDuplicate: false,
    linkConditions: null,
    mustConfig: false,
    integrationId: String(flowId),
    ...overrides,
  };
}

/** A step the server answered with, plus what the client adds to it. */
const asClientHolds = (step: Step) => ({
  ...step,
  tempId: null,
  metrics: null,
  peopleCounts: {},
  ephemeralData: {},
  pendingUpdate: true,
  pendingDelete: false,
  isDuplicate: false,
});

describe('steps sent whole', () => {
  it('POST takes every field of the Step entity, ignoring the ones the server works out', async () => {
    const flow = await newFlow();
    const res = await client.post(
      '/v1/steps/',
      clientStep(flow.id, { mustConfig: true, linkConditions: ['yes', 'no'], outputFields: { url: 'x' } }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.tempId).toBe('tmp-7');
    const step = res.body.step as Step;
    expect(step).toMatchObject({
      flowId: flow.id,
      integrationId: String(flow.id),
      type: 'action',
      operationKey: '/add-tag',
      coordinates: { x: 120, y: 240 },
      position: null,
      mustConfig: false,
      linkConditions: null,
      outputFields: null,
    });
    expect(step.id).toBeGreaterThanOrEqual(100);
    // A numeric temporary id is echoed as sent; the spec's coordinates default to 0,0.
    const second = await client.post('/v1/steps/', {
      ...clientStep(flow.id, { tempId: 42, operationKey: '/added-tag', type: 'trigger' }),
      coordinates: undefined,
    });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ tempId: 42, step: { type: 'trigger', coordinates: { x: 0, y: 0 } } });
  });

  it('POST takes the flow from integrationId when flowId is absent', async () => {
    const flow = await newFlow();
    const { flowId: _omitted, ...body } = clientStep(flow.id);
    const res = await client.post('/v1/steps/', { ...body, integrationId: flow.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.step.flowId).toBe(flow.id);
    const stored = (await client.get(`/v1/integrations/${flow.id}`)).body.integration as Flow;
    expect(Object.keys(stored.steps)).toEqual([String(res.body.step.id)]);
  });

  it('POST refuses a contradicting type, flowId and integrationId that disagree, no flow at all, and keys outside the entity', async () => {
    const flow = await newFlow();
    const other = await newFlow('Other');
    await expectRefused(
      client.post(
        '/v1/steps/',
        clientStep(flow.id, { type: 'filter', operationKey: '/send', inputFields: {} }),
      ),
      "Step type 'filter' does not match the operation /send, which is an action.",
    );
    await expectRefused(
      client.post('/v1/steps/', clientStep(flow.id, { type: 'action', operationKey: '/added-tag' })),
      "Step type 'action' does not match the operation /added-tag, which is a trigger.",
    );
    await expectRefused(
      client.post('/v1/steps/', clientStep(flow.id, { integrationId: String(other.id) })),
      flowBodyMessages.integrationIdDisagrees(other.id, flow.id),
    );
    await expectRefused(
      client.post('/v1/steps/', clientStep(flow.id, { flowId: undefined, integrationId: null })),
      flowBodyMessages.flowIdNeeded,
    );
    await expectRefused(
      client.post('/v1/steps/', clientStep(flow.id, { integrationId: 'flow-1' })),
      flowBodyMessages.integrationIdInvalid,
    );
    await expectRefused(
      client.post('/v1/steps/', clientStep(flow.id, { colour: 'red' })),
      'Unrecognized key: "colour"',
    );
    // An operation outside the catalogue stays 'Unknown step' (422), whatever type is sent.
    const unknown = await client.post(
      '/v1/steps/',
      clientStep(flow.id, { operationKey: '/fax', type: 'action' }),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toBe(flowMessages.unknownStep);
  });

  it('PATCH takes the step back whole, with the changes the user made', async () => {
    const flow = await newFlow();
    const step = (await client.post('/v1/steps/', clientStep(flow.id))).body.step as Step;
    const res = await client.patch(`/v1/steps/${step.id}`, {
      ...asClientHolds(step),
      coordinates: { x: 300, y: 20 },
      inputFields: encodeInputFields({ tag: 'gold' }),
      position: 2,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.step).toMatchObject({
      id: step.id,
      coordinates: { x: 300, y: 20 },
      inputFields: encodeInputFields({ tag: 'gold' }),
      position: 2,
      type: 'action',
    });
    // Sent back exactly as read (the GET's step, integrationId and all): nothing changes but the save time.
    const read = (await client.get(`/v1/steps/${step.id}`)).body.step as Step;
    const again = await client.patch(`/v1/steps/${read.id}`, read);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect({ ...again.body.step, updatedAt: null }).toEqual({
      ...read,
      updatedAt: null,
      peopleCount: again.body.step.peopleCount,
    });
  });

  it('PATCH refuses another id, another flow, another operation, a contradicting type, and disagreeing flow ids', async () => {
    const flow = await newFlow();
    const other = await newFlow('Other');
    const step = asClientHolds((await client.post('/v1/steps/', clientStep(flow.id))).body.step as Step);
    const patch = (body: Record<string, unknown>) => client.patch(`/v1/steps/${step.id}`, body);
    await expectRefused(
      patch({ ...step, id: step.id + 1, coordinates: { x: 1, y: 1 } }),
      flowApiMessages.stepIdMismatch,
    );
    await expectRefused(
      patch({ ...step, flowId: other.id, integrationId: null }),
      flowBodyMessages.stepOtherFlow(flow.id),
    );
    await expectRefused(
      patch({ ...step, flowId: undefined, integrationId: other.id }),
      flowBodyMessages.stepOtherFlow(flow.id),
    );
    await expectRefused(
      patch({ ...step, integrationId: String(other.id) }),
      flowBodyMessages.integrationIdDisagrees(other.id, flow.id),
    );
    await expectRefused(
      patch({ ...step, type: 'trigger' }),
      "Step type 'trigger' does not match the operation /add-tag, which is an action.",
    );
    await expectRefused(
      patch({ ...step, operationKey: '/remove-tag' }),
      flowBodyMessages.operationFixed('/add-tag'),
    );
    await expectRefused(patch({ ...step, serviceId: 'slack' }), flowBodyMessages.operationFixed('/add-tag'));
    await expectRefused(patch({ ...step, notes: 'x' }), 'Unrecognized key: "notes"');
  });
});

describe('links sent whole', () => {
  async function twoSteps(flowId: number) {
    const trigger = (
      await client.post('/v1/steps/', clientStep(flowId, { operationKey: '/added-tag', type: 'trigger' }))
    ).body.step as Step;
    const action = (await client.post('/v1/steps/', clientStep(flowId))).body.step as Step;
    return { trigger, action };
  }

  it('POST takes every field of the Link entity, ignoring the client-only ones', async () => {
    const flow = await newFlow();
    const { trigger, action } = await twoSteps(flow.id);
    const res = await client.post('/v1/links/', {
      id: 'tmp-link',
      source: trigger.id,
      target: action.id,
      beingCreated: true,
      linkPopupCoordinates: { x: 10, y: 20 },
      condition: null,
      flowId: flow.id,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.link).toMatchObject({
      flowId: flow.id,
      source: trigger.id,
      target: action.id,
      condition: null,
    });
    expect(res.body.link.id).toBeGreaterThanOrEqual(100);
  });

  it("POST refuses a flowId other than its steps' flow, and keys outside the entity", async () => {
    const flow = await newFlow();
    const other = await newFlow('Other');
    const { trigger, action } = await twoSteps(flow.id);
    await expectRefused(
      client.post('/v1/links/', { source: trigger.id, target: action.id, flowId: other.id }),
      flowBodyMessages.linkOtherFlow(flow.id),
    );
    await expectRefused(
      client.post('/v1/links/', { source: trigger.id, target: action.id, label: 'next' }),
      'Unrecognized key: "label"',
    );
  });
});

describe('flows sent whole', () => {
  /** A new flow as the spec's client makes it before saving. */
  const clientFlow = (overrides: Record<string, unknown> = {}) => ({
    id: null,
    name: 'Drafted',
    status: 'deactivated-user',
    archived: false,
    steps: {},
    links: [],
    lastSaved: null,
    createdAt: null,
    updatedAt: null,
    recipe: null,
    ...overrides,
  });

  it('POST takes every field of the Flow entity; a new flow is switched off, not archived and empty', async () => {
    const res = await client.post(
      '/v1/integrations',
      clientFlow({
        status: 'active',
        archived: true,
        recipe: 'welcome',
        reentry: 'after-days',
        reentryDays: 3,
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.integration).toMatchObject({
      name: 'Drafted',
      status: 'deactivated-user',
      archived: false,
      steps: {},
      links: [],
      recipe: null,
      reentry: 'after-days',
      reentryDays: 3,
    });
    const plain = await client.post('/v1/integrations', clientFlow());
    expect(plain.body.integration).toMatchObject({ reentry: 'once', reentryDays: null });
  });

  it('POST refuses steps or links in a new flow, keys outside the entity, and after-days without days', async () => {
    await expectRefused(
      client.post('/v1/integrations', clientFlow({ steps: { 'tmp-1': clientStep(1) } })),
      flowBodyMessages.newFlowHasNoSteps,
    );
    await expectRefused(
      client.post('/v1/integrations', clientFlow({ links: [{ source: 1, target: 2 }] })),
      flowBodyMessages.newFlowHasNoSteps,
    );
    await expectRefused(
      client.post('/v1/integrations', clientFlow({ folder: 3 })),
      'Unrecognized key: "folder"',
    );
    const before = await rows();
    const res = await client.post('/v1/integrations', clientFlow({ reentry: 'after-days' }));
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(flowApiMessages.reentryDays);
    expect(await rows()).toEqual(before);
  });

  it('PATCH takes the flow back whole (steps and links ignored: they are saved through their own calls)', async () => {
    const flow = await newFlow('Whole');
    const step = (await client.post('/v1/steps/', clientStep(flow.id))).body.step as Step;
    const read = (await client.get(`/v1/integrations/${flow.id}`)).body.integration as Flow;
    const res = await client.patch(`/v1/integrations/${flow.id}`, {
      ...read,
      name: 'Whole, renamed',
      steps: {},
      links: [{ id: 1, source: 1, target: 2 }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.integration).toMatchObject({ name: 'Whole, renamed', status: 'deactivated-user' });
    expect(Object.keys(res.body.integration.steps)).toEqual([String(step.id)]);
  });

  it('PATCH refuses another id, and keys outside the entity', async () => {
    const flow = await newFlow('Kept');
    const read = (await client.get(`/v1/integrations/${flow.id}`)).body.integration as Flow;
    await expectRefused(
      client.patch(`/v1/integrations/${flow.id}`, { ...read, id: flow.id + 1, name: 'Changed' }),
      bodyIdMismatch('flow'),
    );
    await expectRefused(
      client.patch(`/v1/integrations/${flow.id}`, { ...read, name: 'Changed', owner: 'me' }),
      'Unrecognized key: "owner"',
    );
    await expectRefused(
      client.patch(`/v1/integrations/${flow.id}`, { ...read, status: 'paused' }),
      /^status: Invalid option/,
    );
  });
});
