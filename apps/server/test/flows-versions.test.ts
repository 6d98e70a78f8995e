import {
  flowMessages,
  flowVersionMessages,
  type Flow,
  type FlowSnapshot,
  type VersionDiff,
} from '@herald/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember } from './email-helpers.ts';
import {
  accountOf,
  activate,
  addStep,
  email,
  fields,
  link,
  sendFlow,
  smtpSink,
  useFlowsContext,
  type Owner,
} from './flows-fixtures.ts';
import { registerUser } from './helpers.ts';

const testContext = useFlowsContext();

const versions = async (owner: Owner, flowId: number) => {
  const res = await owner.client.get(`/v1/integrations/${flowId}/versions`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    versions: Array<{
      number: number;
      createdBy: { name: string; email: string } | null;
      createdAt: string;
      stepCount: number;
      linkCount: number;
    }>;
    matchesCurrent: number | null;
  };
};
const version = async (owner: Owner, flowId: number, number: number, compare?: number) => {
  const res = await owner.client.get(
    `/v1/integrations/${flowId}/versions/${number}${compare ? `?compare=${compare}` : ''}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { version: { number: number; snapshot: FlowSnapshot }; diff: VersionDiff | null };
};
const off = (owner: Owner, flowId: number) => activate(owner.client, flowId, 'deactivated-user');
const wait = (amount: number) => ({ wait: { mode: 'duration', amount, unit: 'days' } });

/** A runnable flow switched on once: tag → send → wait 1 day → tag. */
async function activeFlow(owner: Owner) {
  const { id: emailId } = await email(owner);
  const { flow, send } = await sendFlow(owner, emailId);
  const delay = await addStep(owner.client, flow.id, '/delay-v2', wait(1));
  const tag = await addStep(owner.client, flow.id, '/add-tag', { tag: 'welcomed' });
  await link(owner.client, send.id, delay.id);
  await link(owner.client, delay.id, tag.id);
  expect((await activate(owner.client, flow.id)).status).toBe(200);
  return { flow, send, delay, tag, emailId };
}

describe('flow versions', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await registerUser(testContext().app);
  });

  it('saves a version when a changed flow is switched on, with who and when, and none when it is unchanged', async () => {
    const { flow, delay } = await activeFlow(owner);
    let list = await versions(owner, flow.id);
    expect(list.versions).toHaveLength(1);
    expect(list.versions[0]).toMatchObject({
      number: 1,
      stepCount: 4,
      linkCount: 3,
      createdBy: { email: owner.email },
    });
    expect(list.matchesCurrent).toBe(1);

    // Off and on again, unchanged: still one version. Moving a step is layout: no new version either.
    await off(owner, flow.id);
    expect(
      (await owner.client.patch(`/v1/steps/${delay.id}`, { coordinates: { x: 500, y: 500 } })).status,
    ).toBe(200);
    await activate(owner.client, flow.id);
    expect((await versions(owner, flow.id)).versions).toHaveLength(1);

    // A new setting, switched on: version 2; a failed activation writes none.
    await off(owner, flow.id);
    expect((await owner.client.patch(`/v1/steps/${delay.id}`, { inputFields: fields(wait(3)) })).status).toBe(
      200,
    );
    expect((await versions(owner, flow.id)).matchesCurrent).toBeNull();
    const broken = await addStep(owner.client, flow.id, '/send', {});
    expect((await activate(owner.client, flow.id)).status).toBe(422);
    expect((await versions(owner, flow.id)).versions).toHaveLength(1);
    expect((await owner.client.request('DELETE', `/v1/steps/${broken.id}`)).status).toBe(200);
    await owner.client.patch(`/v1/integrations/${flow.id}`, { reentry: 'after-days', reentryDays: 30 });
    expect((await activate(owner.client, flow.id)).status).toBe(200);
    list = await versions(owner, flow.id);
    expect(list.versions.map((v) => v.number)).toEqual([2, 1]);
    expect(list.matchesCurrent).toBe(2);
    expect(Date.parse(list.versions[0]!.createdAt)).toBeGreaterThanOrEqual(
      Date.parse(list.versions[1]!.createdAt),
    );
  });

  it('shows a version and what changed from another: steps added, removed, changed setting by setting, links and settings', async () => {
    const { flow, delay, tag } = await activeFlow(owner);
    await off(owner, flow.id);
    await owner.client.patch(`/v1/steps/${delay.id}`, { inputFields: fields(wait(2)) });
    expect((await owner.client.request('DELETE', `/v1/steps/${tag.id}`)).status).toBe(200);
    const note = await addStep(owner.client, flow.id, '/remove-tag', { tag: 'trial' });
    await link(owner.client, delay.id, note.id);
    await owner.client.patch(`/v1/integrations/${flow.id}`, { reentry: 'after-days', reentryDays: 7 });
    await activate(owner.client, flow.id);

    const one = await version(owner, flow.id, 1);
    expect(one.version.snapshot.steps.map((s) => s.id)).toContain(tag.id);
    expect(one.diff).toBeNull();
    const { diff } = await version(owner, flow.id, 2, 1);
    expect(diff!.steps.added.map((s) => s.id)).toEqual([note.id]);
    expect(diff!.steps.removed.map((s) => s.id)).toEqual([tag.id]);
    expect(diff!.steps.changed).toEqual([
      expect.objectContaining({ settings: [{ path: 'wait.amount', before: 1, after: 2 }] }),
    ]);
    expect(diff!.links.added).toEqual([{ source: delay.id, target: note.id, condition: null }]);
    expect(diff!.links.removed).toEqual([{ source: delay.id, target: tag.id, condition: null }]);
    expect(diff!.settings).toEqual([
      { path: 'reentry', before: 'once', after: 'after-days' },
      { path: 'reentryDays', before: null, after: 7 },
    ]);
  });

  it('restores a version: steps that exist keep their id, removed ones come back under theirs, others go; an active flow asks first', async () => {
    const { flow, delay, tag } = await activeFlow(owner);
    await off(owner, flow.id);
    await owner.client.patch(`/v1/steps/${delay.id}`, {
      inputFields: fields(wait(5)),
      coordinates: { x: 900, y: 900 },
    });
    expect((await owner.client.request('DELETE', `/v1/steps/${tag.id}`)).status).toBe(200);
    const extra = await addStep(owner.client, flow.id, '/lead-score', { change: 5 });
    await link(owner.client, delay.id, extra.id);
    await activate(owner.client, flow.id);
    const before = (await owner.client.get(`/v1/integrations/${flow.id}`)).body.integration as Flow;

    const asked = await owner.client.post(`/v1/integrations/${flow.id}/versions/1/restore`, {});
    expect(asked.status).toBe(409);
    expect(asked.body).toMatchObject({
      message: flowMessages.confirmActiveEdit,
      errorCode: 'confirmActiveEdit',
    });
    const restored = await owner.client.post(`/v1/integrations/${flow.id}/versions/1/restore`, {
      confirmActiveEdit: true,
    });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.message).toBe(flowVersionMessages.restoredActive(1));
    const flowAfter = restored.body.integration as Flow;
    expect(Object.keys(flowAfter.steps).map(Number).sort()).toEqual(
      Object.keys(before.steps)
        .map(Number)
        .filter((id) => id !== extra.id)
        .concat(tag.id)
        .sort(),
    );
    expect(flowAfter.steps[String(delay.id)]!.coordinates).toEqual(
      (await version(owner, flow.id, 1)).version.snapshot.steps.find((s) => s.id === delay.id)!.coordinates,
    );
    expect(flowAfter.links.map((l) => [l.source, l.target])).toEqual(
      expect.arrayContaining([[delay.id, tag.id]]),
    );
    expect(flowAfter.warnings).toEqual([]);
    expect((await versions(owner, flow.id)).matchesCurrent).toBe(1);
    // The workers reload it: its version counter moved.
    const row = await testContext()
      .services.db.selectFrom('flows')
      .select('version')
      .where('accountId', '=', accountOf(owner))
      .where('id', '=', flow.id)
      .executeTakeFirstOrThrow();
    expect(row.version).toBeGreaterThan(1);
    // Restoring on a flow that is off needs no confirmation.
    await off(owner, flow.id);
    const again = await owner.client.post(`/v1/integrations/${flow.id}/versions/2/restore`, {});
    expect(again.status).toBe(200);
    expect(again.body.message).toBe(flowVersionMessages.restored(2));
    expect(Object.keys(again.body.integration.steps).map(Number)).toContain(extra.id);
  });

  it('keeps a person waiting at a step that stays, and ends one at a step restored away', async () => {
    const { flow, delay, tag } = await activeFlow(owner);
    await off(owner, flow.id);
    const wait2 = await addStep(owner.client, flow.id, '/delay-v2', wait(2));
    await owner.client.request('DELETE', `/v1/links/${delay.id}/${tag.id}`);
    await link(owner.client, delay.id, wait2.id);
    await link(owner.client, wait2.id, tag.id);
    await activate(owner.client, flow.id);
    await off(owner, flow.id);
    const db = testContext().services.db;
    const accountId = accountOf(owner);
    const person = await owner.client.post('/v1/people/?source=manual', {
      email: `waiting-${Date.now()}@example.com`,
    });
    expect(person.status, JSON.stringify(person.body)).toBe(201);
    const personId = person.body.user.id as number;
    await db
      .insertInto('flowRuns')
      .values([
        {
          accountId,
          flowId: flow.id,
          personId,
          entry: 1,
          stepId: delay.id,
          status: 'waiting',
          wakeAt: new Date(Date.now() + 86_400_000),
        },
        {
          accountId,
          flowId: flow.id,
          personId,
          entry: 2,
          stepId: wait2.id,
          status: 'waiting',
          wakeAt: new Date(Date.now() + 86_400_000),
        },
      ])
      .execute();
    expect((await owner.client.post(`/v1/integrations/${flow.id}/versions/1/restore`, {})).status).toBe(200);
    const runs = await db
      .selectFrom('flowRuns')
      .select(['entry', 'stepId'])
      .where('accountId', '=', accountId)
      .where('flowId', '=', flow.id)
      .orderBy('entry')
      .execute();
    // The run at the kept wait still points at it; the other points at a step that is gone (it exits when it wakes).
    expect(runs.map((r) => Number(r.stepId))).toEqual([delay.id, wait2.id]);
    const steps = await db
      .selectFrom('flowSteps')
      .select('id')
      .where('accountId', '=', accountId)
      .where('flowId', '=', flow.id)
      .execute();
    expect(steps.map((s) => Number(s.id))).not.toContain(wait2.id);
    expect(steps.map((s) => Number(s.id))).toContain(delay.id);
  });

  it('answers 404 for a version of another flow or account and for a missing one, and checks scopes', async () => {
    const { flow } = await activeFlow(owner);
    const other = await registerUser(testContext().app);
    const theirs = await activeFlow(other);
    expect((await owner.client.get(`/v1/integrations/${theirs.flow.id}/versions`)).status).toBe(404);
    expect((await owner.client.get(`/v1/integrations/${theirs.flow.id}/versions/1`)).status).toBe(404);
    expect(
      (
        await owner.client.post(`/v1/integrations/${theirs.flow.id}/versions/1/restore`, {
          confirmActiveEdit: true,
        })
      ).status,
    ).toBe(404);
    const missing = await owner.client.get(`/v1/integrations/${flow.id}/versions/9`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(flowVersionMessages.notFound);
    const badCompare = await owner.client.get(`/v1/integrations/${flow.id}/versions/1?compare=9`);
    expect(badCompare.status).toBe(404);
    expect(badCompare.body.message).toBe(flowVersionMessages.compareNotFound);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/versions/0`)).status).toBe(400);
    expect((await owner.client.get(`/v1/integrations/${flow.id}/versions/abc`)).status).toBe(400);
    expect(
      (
        await owner.client.post(`/v1/integrations/${flow.id}/versions/1/restore`, {
          confirmActiveEdit: 'yes',
        })
      ).status,
    ).toBe(400);
    const reader = await addMember(testContext(), smtpSink(), owner, ['emails:read', 'flows:read']);
    expect((await reader.get(`/v1/integrations/${flow.id}/versions`)).status).toBe(200);
    expect(
      (await reader.post(`/v1/integrations/${flow.id}/versions/1/restore`, { confirmActiveEdit: true }))
        .status,
    ).toBe(403);
  });
});
