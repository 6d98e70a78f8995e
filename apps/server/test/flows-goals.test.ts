import { flowGoalMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { convertReached, goalFilter } from '../src/features/flows/goals.queries.ts';
import { addMember } from './email-helpers.ts';
import {
  accountOf,
  activate,
  addStep,
  link,
  newFlow,
  smtpSink,
  useFlowsContext,
  type Owner,
} from './flows-fixtures.ts';
import { registerUser, uniqueEmail, type Client } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { until } from './until.ts';

const testContext = useFlowsContext();
const put = (client: Client, flowId: number, conditions: unknown) =>
  client.request('PUT', `/v1/integrations/${flowId}/goal`, { body: { conditions } });
const customerGoal = [{ type: 'tag', operator: 'has', tag: 'customer' }];

async function personWith(client: Client, tags: string[] = []) {
  const created = await client.post('/v1/people/?source=manual', {
    email: uniqueEmail('goal'),
    firstName: 'Ada',
  });
  expect(created.status).toBe(201);
  const id = created.body.user.id as number;
  for (const tag of tags) expect((await client.post('/v1/tags/', { tag, id })).status).toBeLessThan(300);
  return id;
}

/** Tag 'trial' added → (optional step) → wait 3 days → add tag 'done'; switched on. */
async function goalFlow(owner: Owner, middle?: [string, Record<string, unknown>]) {
  const c = owner.client;
  const flow = await newFlow(c, 'Trial to customer');
  const trigger = await addStep(c, flow.id, '/added-tag', { tag: 'trial' });
  const wait = await addStep(c, flow.id, '/delay-v2', {
    wait: { mode: 'duration', amount: 3, unit: 'days' },
  });
  const after = await addStep(c, flow.id, '/add-tag', { tag: 'done' });
  if (middle) {
    const step = await addStep(c, flow.id, middle[0], middle[1]);
    await link(c, trigger.id, step.id);
    await link(c, step.id, wait.id);
  } else {
    await link(c, trigger.id, wait.id);
  }
  await link(c, wait.id, after.id);
  return { flow, trigger, wait, after };
}

async function runOf(owner: Owner, flowId: number, personId: number) {
  const { rows } = await sql<{ id: string; status: string; stepId: string | null; converted: boolean }>`
    select r.id, r.status, r.step_id as "stepId", exists (select 1 from flow_conversions c where c.account_id = r.account_id and c.run_id = r.id) as converted
    from flow_runs r where r.account_id = ${accountOf(owner)} and r.flow_id = ${flowId} and r.person_id = ${personId}`.execute(
    testContext().services.db,
  );
  return rows[0];
}

describe('flow goals', () => {
  it('sets, reads and removes a goal; refuses conditions the segment checks refuse', async () => {
    const owner = await registerUser(testContext().app);
    const { flow } = await goalFlow(owner);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/goal`)).body).toEqual({ conditions: null });
    const saved = await put(owner.client, flow.id, customerGoal);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toEqual({ conditions: customerGoal, message: flowGoalMessages.saved });
    expect((await owner.client.get(`/v1/integrations/${flow.id}/goal`)).body).toEqual({
      conditions: customerGoal,
    });

    const unknownField = await put(owner.client, flow.id, [
      { type: 'field', field: 'nope', operator: 'equals', value: 'x' },
    ]);
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.message).toMatch(/nope/);
    const empty = await put(owner.client, flow.id, []);
    expect([empty.status, empty.body.message]).toEqual([400, flowGoalMessages.emptyGoal]);
    expect(
      (await put(owner.client, flow.id, [{ type: 'tag', operator: 'sometimes', tag: 'x' }])).status,
    ).toBe(400);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/goal`)).body).toEqual({
      conditions: customerGoal,
    });

    const removed = await put(owner.client, flow.id, null);
    expect(removed.body).toEqual({ conditions: null, message: flowGoalMessages.removed });

    const stranger = await registerUser(testContext().app);
    expect((await put(stranger.client, flow.id, customerGoal)).status).toBe(404);
    expect((await stranger.client.get(`/v1/integrations/${flow.id}/goal`)).status).toBe(404);
    expect((await stranger.client.get(`/v1/integrations/${flow.id}/conversions`)).status).toBe(404);

    const reader = await addMember(testContext(), smtpSink(), owner, ['emails:read', 'flows:read']);
    expect((await reader.get(`/v1/integrations/${flow.id}/goal`)).status).toBe(200);
    expect((await reader.get(`/v1/integrations/${flow.id}/conversions`)).status).toBe(200);
    expect((await put(reader, flow.id, customerGoal)).status).toBe(403);
  });

  it('ends a waiting run when the person changes to match the goal, and counts it for the steps passed', async () => {
    const owner = await registerUser(testContext().app);
    const { flow, trigger, wait, after } = await goalFlow(owner);
    expect((await put(owner.client, flow.id, customerGoal)).status).toBe(200);
    expect((await activate(owner.client, flow.id)).status).toBe(200);
    const ada = await personWith(owner.client, ['trial']);
    const grace = await personWith(owner.client, ['trial']);
    await until(
      async () => {
        const r = [await runOf(owner, flow.id, ada), await runOf(owner, flow.id, grace)];
        return r.every((x) => x?.status === 'waiting') && r;
      },
      { timeout: 20_000, message: 'runs waiting' },
    );

    expect((await owner.client.post('/v1/tags/', { tag: 'customer', id: ada })).status).toBeLessThan(300);
    const converted = await until(
      async () => {
        const r = await runOf(owner, flow.id, ada);
        return r?.converted === true && r;
      },
      { timeout: 20_000, message: 'converted' },
    );
    expect(converted).toMatchObject({ status: 'done', stepId: null });
    expect((await runOf(owner, flow.id, grace))?.status).toBe('waiting');

    const figures = await owner.client.get(`/v1/integrations/${flow.id}/conversions`);
    expect(figures.status).toBe(200);
    expect(figures.body).toMatchObject({ hasGoal: true, conversions: 1, entries: 2, rate: 0.5 });
    const byStep = Object.fromEntries(
      (figures.body.steps as { stepId: number; passed: number; converted: number }[]).map((s) => [
        s.stepId,
        [s.passed, s.converted],
      ]),
    );
    expect(byStep).toEqual({ [trigger.id]: [2, 1], [wait.id]: [2, 1], [after.id]: [0, 0] });

    // Changing again counts nothing twice.
    expect((await owner.client.post('/v1/tags/', { tag: 'vip', id: ada })).status).toBeLessThan(300);
    // The change enqueued the flow's goal check (a second ahead); once it ran, nothing more can count.
    await queueDrained(testContext().database.pool);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/conversions`)).body.conversions).toBe(1);
  });

  it('converts a run when its own step reaches the goal, and when an event reaches it', async () => {
    const owner = await registerUser(testContext().app);
    const own = await goalFlow(owner, ['/add-tag', { tag: 'customer' }]);
    expect((await put(owner.client, own.flow.id, customerGoal)).status).toBe(200);
    expect((await activate(owner.client, own.flow.id)).status).toBe(200);
    const events = await goalFlow(owner);
    expect((await put(owner.client, events.flow.id, [{ type: 'event', name: 'purchase' }])).status).toBe(200);
    expect((await activate(owner.client, events.flow.id)).status).toBe(200);
    const ada = await personWith(owner.client, ['trial']);

    const mine = await until(
      async () => {
        const r = await runOf(owner, own.flow.id, ada);
        return r?.converted === true && r;
      },
      { timeout: 20_000, message: 'converted by its own step' },
    );
    expect(mine?.status).toBe('done');
    const waiting = await until(
      async () => {
        const r = await runOf(owner, events.flow.id, ada);
        return r?.status === 'waiting' && r;
      },
      { timeout: 20_000, message: 'waiting' },
    );
    expect(waiting?.converted).toBe(false);

    await withAccount(testContext().services.db, accountOf(owner), (db) =>
      sql`insert into events (account_id, person_id, type, name) values (${accountOf(owner)}, ${ada}, 'track', 'purchase')`.execute(
        db,
      ),
    );
    await until(
      async () => {
        const r = await runOf(owner, events.flow.id, ada);
        return r?.converted === true && r;
      },
      { timeout: 20_000, message: 'converted by an event' },
    );
  });

  it('counts the trigger for a run that reaches the goal before its first step runs', async () => {
    const owner = await registerUser(testContext().app);
    const { flow, trigger, wait } = await goalFlow(owner);
    expect((await put(owner.client, flow.id, customerGoal)).status).toBe(200);
    const ada = await personWith(owner.client, ['customer']);
    const accountId = accountOf(owner);
    // The flow is off, so no worker takes the run: it stays where it entered, nothing executed.
    await testContext()
      .services.db.insertInto('flowRuns')
      .values({
        accountId,
        flowId: flow.id,
        personId: ada,
        stepId: trigger.id,
        status: 'active',
        wakeAt: new Date(),
      })
      .execute();
    const converted = await withAccount(testContext().services.db, accountId, async (db) => {
      const filter = await goalFilter(testContext().services.events, db, accountId, flow.id);
      return convertReached(db, accountId, flow.id, filter!);
    });
    expect(converted).toHaveLength(1);
    expect(await runOf(owner, flow.id, ada)).toMatchObject({ status: 'done', stepId: null, converted: true });
    const figures = (await owner.client.get(`/v1/integrations/${flow.id}/conversions`)).body;
    expect(figures).toMatchObject({ conversions: 1, entries: 1, rate: 1 });
    const byStep = Object.fromEntries(
      (figures.steps as { stepId: number; passed: number; converted: number }[]).map((s) => [
        s.stepId,
        [s.passed, s.converted],
      ]),
    );
    expect(byStep[trigger.id]).toEqual([1, 1]);
    expect(byStep[wait.id]).toEqual([0, 0]);
    // Converting again changes nothing.
    await withAccount(testContext().services.db, accountId, async (db) => {
      const filter = await goalFilter(testContext().services.events, db, accountId, flow.id);
      expect(await convertReached(db, accountId, flow.id, filter!, [converted[0]!])).toEqual([]);
    });
    expect((await owner.client.get(`/v1/integrations/${flow.id}/conversions`)).body.conversions).toBe(1);
  });

  it('leaves flows without a goal alone', async () => {
    const owner = await registerUser(testContext().app);
    const { flow } = await goalFlow(owner);
    expect((await activate(owner.client, flow.id)).status).toBe(200);
    const ada = await personWith(owner.client, ['trial']);
    await until(
      async () => {
        const r = await runOf(owner, flow.id, ada);
        return r?.status === 'waiting' && r;
      },
      { timeout: 20_000, message: 'waiting' },
    );
    expect((await owner.client.post('/v1/tags/', { tag: 'customer', id: ada })).status).toBeLessThan(300);
    await queueDrained(testContext().database.pool);
    expect(await runOf(owner, flow.id, ada)).toMatchObject({ status: 'waiting', converted: false });
    expect((await owner.client.get(`/v1/integrations/${flow.id}/conversions`)).body).toMatchObject({
      hasGoal: false,
      conversions: 0,
      entries: 1,
      rate: 0,
    });
  });
});
