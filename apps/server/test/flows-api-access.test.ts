import { operationKeys } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { addMember } from './email-helpers.ts';
import { newFlow, addStep, link, email, segment, smtpSink, useFlowsContext } from './flows-fixtures.ts';
import { Client, registerUser } from './helpers.ts';

const testContext = useFlowsContext();

describe('attached resources and the catalogue', () => {
  it("lists the emails, segments and fields a flow's steps use", async () => {
    const owner = await registerUser(testContext().app);
    const segmentId = await segment(owner, 'Engaged');
    const { id: emailId } = await email(owner);
    const field = await owner.client.post('/v1/fields', {
      items: [{ name: 'plan', title: 'Plan', type: 'string' }],
    });
    expect(field.status, JSON.stringify(field.body)).toBeLessThan(300);
    const flow = await newFlow(owner.client);
    await addStep(owner.client, flow.id, '/entered-segment', { segment: { id: segmentId } });
    await addStep(owner.client, flow.id, '/send', { email: { id: emailId } });
    await addStep(owner.client, flow.id, '/change-field', { field: 'plan', value: 'pro' });
    const emails = await owner.client.get(`/v1/integrations/${flow.id}/emails`);
    expect(emails.body.emails).toEqual([expect.objectContaining({ id: emailId, name: 'Welcome' })]);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/segments`)).body.segments).toEqual([
      { id: segmentId, name: 'Engaged' },
    ]);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/attached`)).body).toEqual({
      email: [{ id: emailId, name: 'Welcome' }],
      field: [{ name: 'plan', title: 'Plan' }],
      segment: [{ id: segmentId, name: 'Engaged' }],
    });
  });

  it('lists every native operation with its JSON Schema', async () => {
    const owner = await registerUser(testContext().app);
    const res = await owner.client.get('/v1/services');
    expect(res.status).toBe(200);
    // Herald's own steps first; Slack and the third-party apps follow (services-api.test.ts).
    expect(res.body.services[0]).toMatchObject({
      id: 'herald',
      name: 'herald',
      humanName: 'Herald',
      schema: {},
      kind: 'native',
    });
    expect(res.body.steps.map((s: { operationKey: string }) => s.operationKey).sort()).toEqual(
      [...operationKeys].sort(),
    );
    const send = res.body.steps.find((s: { operationKey: string }) => s.operationKey === '/send');
    expect(send).toMatchObject({
      type: 'action',
      serviceId: 'herald',
      isHidden: false,
      mustConfig: { configStep: true },
    });
    expect(send.inputSchema).toMatchObject({ type: 'object', required: ['email'] });
    expect(
      res.body.steps.find((s: { operationKey: string }) => s.operationKey === '/end-flow').mustConfig
        .configStep,
    ).toBe(false);
  });
});

describe('access', () => {
  it('opens a flow read-only with its share token, without the webhook trigger URL, and only that flow', async () => {
    const owner = await registerUser(testContext().app);
    const { id: emailId } = await email(owner);
    const flow = await newFlow(owner.client, 'Shared');
    const hook = await addStep(owner.client, flow.id, '/webhook-trigger');
    const send = await addStep(owner.client, flow.id, '/send', { email: { id: emailId } });
    await link(owner.client, hook.id, send.id);
    const other = await newFlow(owner.client, 'Private');
    const token = (await owner.client.get(`/v1/integrations/${flow.id}/share-token`)).body
      .shareToken as string;
    expect(token).toBeTruthy();
    const anonymous = new Client(testContext().app);
    const q = `read-only-auth=${encodeURIComponent(token)}`;
    const seen = await anonymous.get(`/v1/integrations/${flow.id}?${q}`);
    expect(seen.status).toBe(200);
    expect(seen.body.integration.name).toBe('Shared');
    expect(seen.body.integration.steps[String(hook.id)].outputFields).toBeNull();
    expect(
      (await anonymous.get(`/v1/integrations/${flow.id}/emails?${q}`)).body.emails.map(
        (e: { id: number }) => e.id,
      ),
    ).toEqual([emailId]);
    expect((await anonymous.get(`/v1/integrations/${flow.id}/attached?${q}`)).status).toBe(200);
    expect((await anonymous.get(`/v1/integrations/${other.id}?${q}`)).status).toBe(403);
    expect(
      (
        await anonymous.get(
          `/v1/integrations/${flow.id}?read-only-auth=${encodeURIComponent(token.slice(0, -2))}`,
        )
      ).status,
    ).toBe(403);
    expect((await anonymous.get(`/v1/integrations/${flow.id}`)).status).toBe(401);
    // The token reads; it changes nothing.
    expect((await anonymous.patch(`/v1/integrations/${flow.id}?${q}`, { name: 'x' })).status).toBe(401);
    // A stranger's session with the token still reads only the shared flow.
    const stranger = await registerUser(testContext().app);
    expect((await stranger.client.get(`/v1/integrations/${flow.id}?${q}`)).body.integration.id).toBe(flow.id);
    expect((await stranger.client.get(`/v1/integrations/${flow.id}`)).status).toBe(404);
  });

  it("answers 404 for another account's flow, step and link", async () => {
    const owner = await registerUser(testContext().app);
    const stranger = await registerUser(testContext().app);
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
    const owner = await registerUser(testContext().app);
    const flow = await newFlow(owner.client);
    const step = await addStep(owner.client, flow.id, '/add-tag', { tag: 'a' });
    const reader = await addMember(testContext(), smtpSink(), owner, ['emails:read', 'flows:read']);
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
      expect(
        (await reader.request(method as 'GET', url, body === undefined ? {} : { body })).status,
        `${method} ${url}`,
      ).toBe(403);
    }
    const outsider = await addMember(testContext(), smtpSink(), owner, ['people:read']);
    expect((await outsider.get('/v1/integrations')).status).toBe(403);
    expect((await outsider.get(`/v1/steps/${step.id}`)).status).toBe(403);
  });
});
