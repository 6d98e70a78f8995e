import { flowApiMessages, flowMessages, type Flow } from '@herald/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  newFlow,
  addStep,
  link,
  email,
  segment,
  sendFlow,
  activate,
  accountOf,
  fields,
  inADay,
  useFlowsContext,
  type Owner,
} from './flows-fixtures.ts';
import { registerUser } from './helpers.ts';

const testContext = useFlowsContext();

describe('links', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await registerUser(testContext().app);
  });

  it('links a filter by branch: a branch is required, known, and linked once; a pair is linked once', async () => {
    const flow = await newFlow(owner.client);
    const filter = await addStep(owner.client, flow.id, '/has-tag', { tag: 'vip' });
    const a = await addStep(owner.client, flow.id, '/add-tag', { tag: 'a' });
    const b = await addStep(owner.client, flow.id, '/add-tag', { tag: 'b' });
    const none = await owner.client.post('/v1/links/', { source: filter.id, target: a.id });
    expect(none.status).toBe(422);
    expect(none.body.message).toBe(flowApiMessages.conditionRequired);
    const maybe = await owner.client.post('/v1/links/', {
      source: filter.id,
      target: a.id,
      condition: 'maybe',
    });
    expect(maybe.body.message).toBe(flowMessages.unknownBranch('maybe'));
    await link(owner.client, filter.id, a.id, 'yes');
    const taken = await owner.client.post('/v1/links/', {
      source: filter.id,
      target: b.id,
      condition: 'yes',
    });
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
    expect(
      (await owner.client.post('/v1/links/', { source: step.id, target: trigger.id })).body.message,
    ).toBe(flowMessages.linkToTrigger);
    expect((await owner.client.post('/v1/links/', { source: step.id, target: step.id })).body.message).toBe(
      flowMessages.linkSelf,
    );
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

    const wait = await addStep(owner.client, flow.id, '/delay-v2', {
      wait: { mode: 'duration', amount: 1, unit: 'days' },
    });
    const c = await addStep(owner.client, flow.id, '/add-tag', { tag: 'c' });
    await link(owner.client, c.id, wait.id);
    const filter = await addStep(owner.client, flow.id, '/has-tag', { tag: 'again' });
    await link(owner.client, wait.id, filter.id);
    await link(owner.client, filter.id, c.id, 'yes');
    // The wait that breaks the loop cannot become one that does not.
    const shortened = await owner.client.patch(`/v1/steps/${wait.id}`, {
      inputFields: fields({ wait: { mode: 'duration', amount: 0, unit: 'minutes' } }),
    });
    expect(shortened.status).toBe(422);
    expect(shortened.body.message).toBe(flowMessages.cycleWithoutWait);
    // Settings half typed are kept (the step shows it is not set up) rather than refused as a loop.
    expect(
      (
        await owner.client.patch(`/v1/steps/${wait.id}`, {
          inputFields: fields({ wait: { mode: 'duration', unit: 'hours' } }),
        })
      ).body.step.mustConfig,
    ).toBe(true);
    const longer = await owner.client.patch(`/v1/steps/${wait.id}`, {
      inputFields: fields({ wait: { mode: 'duration', amount: 2, unit: 'hours' } }),
    });
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
    const ab = await addStep(owner.client, flow.id, '/ab-test', {
      variants: [
        { name: 'A', weight: 50 },
        { name: 'B', weight: 50 },
      ],
    });
    const a = await addStep(owner.client, flow.id, '/add-tag', { tag: 'a' });
    const b = await addStep(owner.client, flow.id, '/add-tag', { tag: 'b' });
    await link(owner.client, ab.id, a.id, 'A');
    await link(owner.client, ab.id, b.id, 'B');
    const edited = await owner.client.patch(`/v1/steps/${ab.id}`, {
      inputFields: fields({
        variants: [
          { name: 'A', weight: 70 },
          { name: 'C', weight: 30 },
        ],
      }),
    });
    expect(edited.body.step.linkConditions).toEqual(['A', 'C']);
    expect(
      (await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.links.map(
        (l: { condition: string }) => l.condition,
      ),
    ).toEqual(['A']);
  });
});

describe('activation', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await registerUser(testContext().app);
  });

  it("switches a valid flow on ('on' accepted) and off, with the spec's messages", async () => {
    const { id: emailId } = await email(owner);
    const { flow } = await sendFlow(owner, emailId);
    const on = await activate(owner.client, flow.id, 'on');
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toMatchObject({ integration: { status: 'active' }, message: flowMessages.activated });
    const row = await testContext()
      .services.db.selectFrom('flows')
      .select('activatedAt')
      .where('id', '=', flow.id)
      .executeTakeFirstOrThrow();
    expect(row.activatedAt).not.toBeNull();
    const off = await activate(owner.client, flow.id, 'deactivated-user');
    expect(off.body).toMatchObject({
      integration: { status: 'deactivated-user' },
      message: flowMessages.deactivated,
    });
  });

  it('refuses a send step whose sender is not verified', async () => {
    const { id: emailId, fromEmail } = await email(owner, false);
    const { flow } = await sendFlow(owner, emailId);
    const res = await activate(owner.client, flow.id);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(flowMessages.unverifiedAddress(fromEmail));
    expect((await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration.status).toBe(
      'deactivated-user',
    );
  });

  it('lets a test account send from any address', async () => {
    const tester = await registerUser(testContext().app);
    await testContext()
      .services.db.updateTable('accounts')
      .set({ testAccount: true })
      .where('id', '=', accountOf(tester))
      .execute();
    const { id: emailId } = await email(tester, false);
    const { flow } = await sendFlow(tester, emailId);
    expect((await activate(tester.client, flow.id)).status).toBe(200);
  });

  it('refuses an unconfigured step, a dangling branch, no trigger, and a trigger leading nowhere', async () => {
    const flow = await newFlow(owner.client);
    const empty = await activate(owner.client, flow.id);
    expect(empty.body).toMatchObject({
      message: flowMessages.noTrigger,
      extra: { warnings: [flowMessages.noTrigger] },
    });
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
    expect((await activate(owner.client, other.id)).body.message).toBe(
      flowMessages.danglingBranch('Has tag', 'no'),
    );
  });

  it('refuses a wait of −1 days or 100 years by its settings', async () => {
    for (const amount of [-1, 36_500]) {
      const flow = await newFlow(owner.client);
      const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: 'a' });
      const wait = await addStep(owner.client, flow.id, '/delay-v2', {
        wait: { mode: 'duration', amount, unit: 'days' },
      });
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
    await owner.client.patch(`/v1/steps/${trigger.id}`, {
      inputFields: fields({ at: new Date(Date.now() - 60_000).toISOString() }),
    });
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
    const unconfirmed = await owner.client.patch(`/v1/steps/${send.id}`, {
      inputFields: fields({ email: { id: other.id } }),
    });
    expect(unconfirmed.status).toBe(409);
    expect(unconfirmed.body.message).toBe(flowMessages.confirmActiveEdit);
    const confirmed = await owner.client.patch(`/v1/steps/${send.id}`, {
      inputFields: fields({ email: { id: other.id } }),
      confirmActiveEdit: true,
    });
    expect(confirmed.status).toBe(200);
    expect((await owner.client.request('DELETE', `/v1/steps/${send.id}`)).status).toBe(409);
    expect((await owner.client.request('DELETE', `/v1/steps/${send.id}?confirmActiveEdit=true`)).status).toBe(
      200,
    );
  });

  it('switches an active flow off when it is archived', async () => {
    const { id: emailId } = await email(owner);
    const { flow } = await sendFlow(owner, emailId);
    expect((await activate(owner.client, flow.id)).status).toBe(200);
    const archived = await owner.client.patch(`/v1/integrations/${flow.id}`, { archived: true });
    expect(archived.body).toMatchObject({
      integration: { archived: true, status: 'deactivated-user' },
      message: flowMessages.deactivated,
    });
  });
});
