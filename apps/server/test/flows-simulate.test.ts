import { simulateLimits, simulateMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { addMember } from './email-helpers.ts';
import {
  accountOf,
  addStep,
  email,
  link,
  newFlow,
  smtpSink,
  useFlowsContext,
  type Owner,
} from './flows-fixtures.ts';
import { registerUser, uniqueEmail } from './helpers.ts';

const testContext = useFlowsContext();
const start = '2026-03-02T08:00:00.000Z';

/** Rows a simulation must leave as they were. */
async function footprint(owner: Owner) {
  const { rows } = await sql<Record<string, number>>`
    select (select count(*) from people where account_id = ${accountOf(owner)})::int as people,
           (select count(*) from events where account_id = ${accountOf(owner)} and type = 'track')::int as events,
           (select count(*) from flow_runs where account_id = ${accountOf(owner)})::int as runs,
           (select count(*) from deliveries where account_id = ${accountOf(owner)})::int as deliveries,
           (select count(*) from tags where account_id = ${accountOf(owner)})::int as tags`.execute(
    testContext().services.db,
  );
  return rows[0];
}

/** signup → has tag vip? yes: send the welcome email; no: wait 2 days → first name is Ada? yes: add tag 'warm' → has tag warm? */
async function branchingFlow(owner: Owner) {
  const { id: emailId } = await email(owner);
  const flow = await newFlow(owner.client, 'Onboarding');
  const c = owner.client;
  const trigger = await addStep(c, flow.id, '/event', { name: 'signup' });
  const vip = await addStep(c, flow.id, '/has-tag', { tag: 'vip' });
  const send = await addStep(c, flow.id, '/send', { email: { id: emailId } });
  const wait = await addStep(c, flow.id, '/delay-v2', {
    wait: { mode: 'duration', amount: 2, unit: 'days' },
  });
  const named = await addStep(c, flow.id, '/check-field', {
    condition: { type: 'field', field: 'firstName', operator: 'equals', value: 'Ada' },
  });
  const tag = await addStep(c, flow.id, '/add-tag', { tag: 'warm' });
  const warm = await addStep(c, flow.id, '/has-tag', { tag: 'warm' });
  await link(c, trigger.id, vip.id);
  await link(c, vip.id, send.id, 'yes');
  await link(c, vip.id, wait.id, 'no');
  await link(c, wait.id, named.id);
  await link(c, named.id, tag.id, 'yes');
  await link(c, tag.id, warm.id);
  return {
    flow,
    emailId,
    ids: {
      trigger: trigger.id,
      vip: vip.id,
      send: send.id,
      wait: wait.id,
      named: named.id,
      tag: tag.id,
      warm: warm.id,
    },
  };
}

describe('POST /v1/integrations/{id}/simulate', () => {
  it('runs a made-up person through the flow: verdicts with the person’s values, the email rendered, nothing written', async () => {
    const owner = await registerUser(testContext().app);
    const { flow, emailId, ids } = await branchingFlow(owner);
    const before = await footprint(owner);
    const res = await owner.client.post(`/v1/integrations/${flow.id}/simulate`, {
      person: { fields: { firstName: 'Grace' }, tags: ['vip', 'trial'] },
      start,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ended).toBe('done');
    expect(res.body.path.map((s: { stepId: number; outcome: string }) => [s.stepId, s.outcome])).toEqual([
      [ids.trigger, 'entered'],
      [ids.vip, 'yes'],
      [ids.send, 'send'],
    ]);
    expect(res.body.path[1].why).toContain('has tag “vip”: yes (the person’s tags: vip, trial)');
    expect(res.body.path[1].verdicts).toEqual([
      { node: { type: 'tag', operator: 'has', tag: 'vip' }, matches: true },
    ]);
    expect(res.body.emails).toEqual([
      expect.objectContaining({ stepId: ids.send, emailId, at: start, subject: 'Welcome, Grace' }),
    ]);
    expect(res.body.emails[0].html).toContain('Hi Grace');
    expect(res.body.person).toEqual({ id: null, email: null, synthetic: true });
    expect(await footprint(owner)).toEqual(before);
  });

  it('reads a filter saved through the API without a window as "ever" (was a 500)', async () => {
    const owner = await registerUser(testContext().app);
    const flow = await newFlow(owner.client, 'Pricing visitors');
    const trigger = await addStep(owner.client, flow.id, '/event', { name: 'signup' });
    const visited = await addStep(owner.client, flow.id, '/visited-page', {
      condition: { type: 'pageVisited', performed: false, match: 'contains', url: '/pricing' },
    });
    await link(owner.client, trigger.id, visited.id);
    const res = await owner.client.post(`/v1/integrations/${flow.id}/simulate`, { person: {}, start });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.path.at(-1)).toMatchObject({ stepId: visited.id, outcome: 'yes' });
  });

  it('waits on the person’s clock, and tag steps change the person for later filters', async () => {
    const owner = await registerUser(testContext().app);
    const { flow, ids } = await branchingFlow(owner);
    const res = await owner.client.post(`/v1/integrations/${flow.id}/simulate`, {
      person: { fields: { firstName: 'Ada' }, timezone: 'Europe/Paris' },
      start,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const path = res.body.path as {
      stepId: number;
      outcome: string;
      at: string;
      why: string;
      wakeAt?: string;
      wakeLocal?: string;
    }[];
    expect(path.map((s) => [s.stepId, s.outcome])).toEqual([
      [ids.trigger, 'entered'],
      [ids.vip, 'no'],
      [ids.wait, 'wait'],
      [ids.named, 'yes'],
      [ids.tag, 'would add tag'],
      [ids.warm, 'yes'],
    ]);
    expect(path[1]!.why).toContain('the person’s tags: none');
    expect(path[2]!.wakeAt).toBe('2026-03-04T08:00:00.000Z');
    expect(path[2]!.wakeLocal).toContain('09:00');
    expect(path[2]!.why).toContain('Europe/Paris');
    expect(path[3]!.at).toBe('2026-03-04T08:00:00.000Z');
    expect(path[3]!.why).toContain('firstName equals “Ada”: yes (the person’s value: “Ada”)');
    expect(res.body.timeZone).toBe('Europe/Paris');
    expect(res.body.emails).toEqual([]);
  });

  it('stops at the horizon with the next wake time', async () => {
    const owner = await registerUser(testContext().app);
    const { flow } = await branchingFlow(owner);
    const res = await owner.client.post(`/v1/integrations/${flow.id}/simulate`, {
      person: { fields: {}, tags: [] },
      start,
      until: '2026-03-03T08:00:00.000Z',
    });
    expect(res.status).toBe(200);
    expect(res.body.ended).toBe('horizon');
    expect(res.body.wakeAt).toBe('2026-03-04T08:00:00.000Z');
  });

  it('tests a real person by email, read-only: their tags stay as they were', async () => {
    const owner = await registerUser(testContext().app);
    const { flow, ids } = await branchingFlow(owner);
    const address = uniqueEmail('ada');
    const created = await owner.client.post('/v1/people/?source=manual', {
      email: address,
      firstName: 'Ada',
    });
    expect(created.status).toBe(201);
    const before = await footprint(owner);
    const res = await owner.client.post(`/v1/integrations/${flow.id}/simulate`, {
      person: { email: address.toUpperCase() },
      start,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.person).toEqual({ id: created.body.user.id, email: address, synthetic: false });
    expect(res.body.path.at(-1)).toMatchObject({ stepId: ids.warm, outcome: 'yes' });
    const person = await owner.client.get(`/v1/people/${created.body.user.id}`);
    expect(JSON.stringify(person.body)).not.toContain('warm');
    expect(await footprint(owner)).toEqual(before);

    // A writer holding the person's row longer than the test run waits: 409, not a hang or a 500.
    let release = () => {};
    const locked = new Promise<void>((resolveLocked) => {
      void testContext()
        .services.db.transaction()
        .execute(async (trx) => {
          await sql`select 1 from people where account_id = ${accountOf(owner)} and id = ${created.body.user.id} for update`.execute(
            trx,
          );
          resolveLocked();
          await new Promise<void>((resolve) => (release = resolve));
        });
    });
    await locked;
    const busy = await owner.client.post(`/v1/integrations/${flow.id}/simulate`, {
      person: { email: address },
      start,
    });
    release();
    expect([busy.status, busy.body.message]).toEqual([409, simulateMessages.personBusy]);
  });

  it('ends at the goal when an event reaches it while the person waits', async () => {
    const owner = await registerUser(testContext().app);
    const { flow } = await branchingFlow(owner);
    const goal = await owner.client.request('PUT', `/v1/integrations/${flow.id}/goal`, {
      body: { conditions: [{ type: 'event', name: 'purchase' }] },
    });
    expect(goal.status, JSON.stringify(goal.body)).toBe(200);
    const before = await footprint(owner);
    const res = await owner.client.post(`/v1/integrations/${flow.id}/simulate`, {
      person: { fields: { firstName: 'Ada' } },
      events: [{ name: 'purchase', at: '2026-03-03T12:00:00.000Z', properties: { amount: 30 } }],
      start,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ended).toBe('converted');
    expect(res.body.convertedAt).toBe('2026-03-03T12:00:00.000Z');
    expect(res.body.path.at(-1).outcome).toBe('wait');
    expect(await footprint(owner)).toEqual(before);
  });

  it('stops a loop through a short wait at the step limit', async () => {
    const owner = await registerUser(testContext().app);
    const flow = await newFlow(owner.client, 'Loop');
    const trigger = await addStep(owner.client, flow.id, '/event', { name: 'go' });
    const tag = await addStep(owner.client, flow.id, '/add-tag', { tag: 'ping' });
    const wait = await addStep(owner.client, flow.id, '/delay-v2', {
      wait: { mode: 'duration', amount: 1, unit: 'minutes' },
    });
    await link(owner.client, trigger.id, tag.id);
    await link(owner.client, tag.id, wait.id);
    await link(owner.client, wait.id, tag.id);
    const res = await owner.client.post(`/v1/integrations/${flow.id}/simulate`, {
      person: { fields: {} },
      start,
      until: '2027-03-01T00:00:00.000Z',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ended).toBe('stepLimit');
    expect(res.body.reason).toBe(simulateMessages.stepLimit);
    expect(res.body.path.length).toBeLessThanOrEqual(simulateLimits.maxSteps);
  });

  it('refuses bad input with a 4xx and a clear message', async () => {
    const owner = await registerUser(testContext().app);
    const { flow } = await branchingFlow(owner);
    const url = `/v1/integrations/${flow.id}/simulate`;
    const events = Array.from({ length: 10_000 }, (_, i) => ({
      name: 'view',
      at: new Date(Date.parse(start) + i * 1000).toISOString(),
    }));
    const many = await owner.client.post(url, { person: { fields: {} }, events, start });
    expect(many.status).toBe(400);
    expect(JSON.stringify(many.body)).toContain(simulateMessages.tooManyEvents);
    const unknown = await owner.client.post(url, { person: { email: 'nobody@example.com' } });
    expect([unknown.status, unknown.body.message]).toEqual([404, simulateMessages.personNotFound]);
    const zone = await owner.client.post(url, { person: { fields: {}, timezone: 'Mars/Olympus' } });
    expect([zone.status, zone.body.message]).toEqual([400, simulateMessages.badTimeZone]);
    const backwards = await owner.client.post(url, {
      person: { fields: {} },
      start,
      until: '2026-03-01T00:00:00Z',
    });
    expect([backwards.status, backwards.body.message]).toEqual([400, simulateMessages.untilBeforeStart]);
    const long = await owner.client.post(url, {
      person: { fields: {} },
      start,
      until: '2028-03-01T00:00:00Z',
    });
    expect([long.status, long.body.message]).toEqual([400, simulateMessages.horizonTooLong]);
    const notTrigger = await owner.client.post(url, { person: { fields: {} }, triggerStepId: 999999999 });
    expect([notTrigger.status, notTrigger.body.message]).toEqual([400, simulateMessages.notATrigger]);
    const ancient = await owner.client.post(url, { person: { fields: {} }, start: '0001-01-01T00:00:00Z' });
    expect([ancient.status, ancient.body.message]).toEqual([400, simulateMessages.startOutOfRange]);
    const future = await owner.client.post(url, { person: { fields: {} }, start: '9999-12-01T00:00:00Z' });
    expect([future.status, future.body.message]).toEqual([400, simulateMessages.startOutOfRange]);
    const address = uniqueEmail('taken');
    expect((await owner.client.post('/v1/people/?source=manual', { email: address })).status).toBe(201);
    const taken = await owner.client.post(url, { person: { fields: { email: address.toUpperCase() } } });
    expect([taken.status, taken.body.message]).toEqual([400, simulateMessages.emailTaken]);
    const badTime = await owner.client.post(url, { person: { fields: {} }, start: 'tomorrow' });
    expect(badTime.status).toBe(400);
    const empty = await newFlow(owner.client, 'Empty');
    const noTrigger = await owner.client.post(`/v1/integrations/${empty.id}/simulate`, {
      person: { fields: {} },
    });
    expect([noTrigger.status, noTrigger.body.message]).toEqual([400, simulateMessages.noTrigger]);
    const stranger = await registerUser(testContext().app);
    expect((await stranger.client.post(url, { person: { fields: {} } })).status).toBe(404);
  });

  it('needs flows:read', async () => {
    const owner = await registerUser(testContext().app);
    const { flow } = await branchingFlow(owner);
    const reader = await addMember(testContext(), smtpSink(), owner, ['emails:read', 'flows:read']);
    const ok = await reader.post(`/v1/integrations/${flow.id}/simulate`, { person: { fields: {} }, start });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const outsider = await addMember(testContext(), smtpSink(), owner, ['people:read']);
    expect(
      (await outsider.post(`/v1/integrations/${flow.id}/simulate`, { person: { fields: {} }, start })).status,
    ).toBe(403);
  });
});
