import { flowLimits, flowMessages, type Flow, type Step } from '@herald/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { newFlow, addStep, link, accountOf, fields, useFlowsContext, type Owner } from './flows-fixtures.ts';
import { Client, registerUser, uniqueEmail } from './helpers.ts';
import { webhookTriggerToken } from '../src/features/flows/flow-webhooks.service.ts';

const testContext = useFlowsContext();

describe('steps', () => {
  let owner: Owner;
  let flow: Flow;
  beforeAll(async () => {
    owner = await registerUser(testContext().app);
    flow = await newFlow(owner.client);
  });

  it("answers 'Unknown step' for an operation or service outside the catalogue", async () => {
    for (const body of [
      { operationKey: '/no-such-step' },
      { operationKey: '/stripe-charge' },
      { operationKey: '/send', serviceId: 'stripe' },
    ]) {
      const res = await owner.client.post('/v1/steps/', { flowId: flow.id, ...body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.message).toBe(flowMessages.unknownStep);
    }
  });

  it('echoes the temporary id, marks an unset step mustConfig with its problem, and allows one trigger per flow', async () => {
    const res = await owner.client.post('/v1/steps/', {
      flowId: flow.id,
      tempId: 'tmp-42',
      operationKey: '/entered-segment',
    });
    expect(res.status).toBe(201);
    expect(res.body.tempId).toBe('tmp-42');
    expect(res.body.step).toMatchObject({
      flowId: flow.id,
      type: 'trigger',
      serviceId: 'herald',
      mustConfig: true,
      coordinates: { x: 0, y: 0 },
      peopleCount: 0,
    });
    expect(res.body.step.problem).toBe(flowMessages.unconfigured('Entered segment'));
    const second = await owner.client.post('/v1/steps/', { flowId: flow.id, operationKey: '/added-tag' });
    expect(second.status).toBe(422);
    expect(second.body.message).toBe(flowMessages.oneTrigger);
  });

  it('gives filters yes/no branches and an A/B test its variant names', async () => {
    const filter = await addStep(owner.client, flow.id, '/has-tag', { tag: 'vip' });
    expect(filter.linkConditions).toEqual(['yes', 'no']);
    const ab = await addStep(owner.client, flow.id, '/ab-test', {
      variants: [
        { name: 'A', weight: 50 },
        { name: 'B', weight: 50 },
      ],
    });
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
    const edited = await owner.client.patch(`/v1/steps/${step.id}`, {
      id: step.id,
      inputFields: fields({ tag: 'c' }),
      position: 3,
    });
    expect(edited.status).toBe(200);
    expect(edited.body.step).toMatchObject({
      position: 3,
      inputFields: { properties: { tag: { value: 'c' } } },
    });
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
      const res = await owner.client.post('/v1/steps/', {
        flowId: big.id,
        operationKey: '/add-tag',
        inputFields: fields({ tag: `t${i}` }),
      });
      expect(res.status).toBe(201);
    }
    const over = await owner.client.post('/v1/steps/', { flowId: big.id, operationKey: '/add-tag' });
    expect(over.status).toBe(422);
    expect(over.body.message).toBe(flowMessages.tooManySteps);
  }, 120_000);

  it('refuses settings over the size limit (422) and a 1 MB body (413)', async () => {
    const large = await owner.client.post('/v1/steps/', {
      flowId: flow.id,
      operationKey: '/add-tag',
      inputFields: fields({ tag: 'x'.repeat(flowLimits.maxInputFieldsChars + 1) }),
    });
    expect(large.status).toBe(422);
    expect(large.body.message).toBe(flowMessages.inputTooLarge);
    const huge = await owner.client.post('/v1/steps/', {
      flowId: flow.id,
      operationKey: '/add-tag',
      inputFields: fields({ tag: 'x'.repeat(1_100_000) }),
    });
    expect(huge.status).toBe(413);
    const step = await addStep(owner.client, flow.id, '/add-tag', { tag: 'small' });
    const grown = await owner.client.patch(`/v1/steps/${step.id}`, {
      inputFields: fields({ tag: 'y'.repeat(flowLimits.maxInputFieldsChars) }),
    });
    expect(grown.status).toBe(422);
  });

  it('refuses a webhook to loopback, link-local metadata, private and localhost addresses, on create and edit', async () => {
    for (const url of [
      'http://127.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.8:8080/',
      'http://[::1]/',
      'http://2130706433/',
      'http://localhost:3000/',
    ]) {
      const res = await owner.client.post('/v1/steps/', {
        flowId: flow.id,
        operationKey: '/send-webhook',
        inputFields: fields({ url }),
      });
      expect(res.status, url).toBe(422);
      expect(res.body.message).toBe(flowMessages.webhookPrivate);
    }
    const ok = await addStep(owner.client, flow.id, '/send-webhook', { url: 'https://93.184.216.34/hook' });
    expect(ok.mustConfig).toBe(false);
    const bad = await owner.client.patch(`/v1/steps/${ok.id}`, {
      inputFields: fields({ url: 'http://169.254.169.254/' }),
    });
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
    const { secret } = await testContext()
      .services.db.selectFrom('flowSteps')
      .select('secret')
      .where('id', '=', step.id)
      .executeTakeFirstOrThrow();
    expect(secret).toMatch(/^[\w-]{40,}$/);
    expect(url.searchParams.get('token')).toBe(webhookTriggerToken(secret!, step.id));
    // The URL works: the inbound endpoint enters a person into the flow with it (the flow is off, so nobody enters).
    const person = await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('hook') });
    const call = await new Client(testContext().app).request('POST', `${url.pathname}${url.search}`, {
      rawBody: JSON.stringify({ personId: person.body.user.id }),
      origin: null,
    });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ personId: person.body.user.id, entered: false });
    expect(
      (
        await new Client(testContext().app).request('POST', `${url.pathname}?token=bad`, {
          rawBody: '{"personId":1}',
          origin: null,
        })
      ).status,
    ).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(res.body)).not.toContain(secret);
    expect(JSON.stringify((await owner.client.get(`/v1/integrations/${own.id}`)).body)).not.toContain(secret);
  });

  it('lists the people at a step and counts them per step', async () => {
    const own = await newFlow(owner.client);
    const trigger = await addStep(owner.client, own.id, '/added-tag', { tag: 'a' });
    const wait = await addStep(owner.client, own.id, '/delay-v2', {
      wait: { mode: 'duration', amount: 2, unit: 'days' },
    });
    const people: number[] = [];
    for (const firstName of ['Ann', 'Bob', 'Cy']) {
      const res = await owner.client.post('/v1/people/?source=manual', {
        email: uniqueEmail(firstName.toLowerCase()),
        firstName,
      });
      expect(res.status).toBe(201);
      people.push(res.body.user.id as number);
    }
    const accountId = accountOf(owner);
    const wakeAt = new Date(Date.now() + 86_400_000);
    await testContext()
      .services.db.insertInto('flowRuns')
      .values([
        { accountId, flowId: own.id, personId: people[0]!, stepId: wait.id, status: 'waiting', wakeAt },
        { accountId, flowId: own.id, personId: people[1]!, stepId: wait.id, status: 'waiting', wakeAt },
        {
          accountId,
          flowId: own.id,
          personId: people[2]!,
          stepId: null,
          status: 'done',
          finishedAt: new Date(),
        },
      ])
      .execute();
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
    const dee = await owner.client.post('/v1/people/?source=manual', {
      email: uniqueEmail('dee'),
      firstName: 'Dee',
    });
    const run = await testContext()
      .services.db.insertInto('flowRuns')
      .values({
        accountId,
        flowId: own.id,
        personId: dee.body.user.id as number,
        stepId: end.id,
        status: 'waiting',
        wakeAt,
        seq: 2,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await testContext()
      .services.db.insertInto('flowRunSteps')
      .values([
        { accountId, runId: Number(run.id), seq: 1, flowId: own.id, stepId: trigger.id },
        { accountId, runId: Number(run.id), seq: 2, flowId: own.id, stepId: wait.id },
      ])
      .execute();
    expect((await owner.client.get(`/v1/integrations/${own.id}/people-counts`)).body.steps).toEqual({
      [String(wait.id)]: 3,
    });
    expect(
      (await owner.client.get(`/v1/steps/${wait.id}/people`)).body.people.map(
        (p: { firstName: string }) => p.firstName,
      ),
    ).toEqual(['Ann', 'Bob', 'Dee']);
    expect((await owner.client.get(`/v1/steps/${end.id}/people`)).body.people).toEqual([]);
  });
});
