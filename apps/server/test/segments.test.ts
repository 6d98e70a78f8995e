import { scopeIds, segmentMessages, type ConditionNode } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
const ids: Record<string, number> = {};

const tag = (t: string): ConditionNode => ({ type: 'tag', operator: 'has', tag: t });
const planIs = (plan: string): ConditionNode => ({
  type: 'field',
  field: 'plan',
  operator: 'equals',
  value: plan,
});

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  await owner.client.post('/v1/fields', {
    items: [
      { name: 'plan', type: 'string' },
      { name: 'score', type: 'number' },
      { name: 'renewal', type: 'date' },
    ],
  });
  const people: [string, Record<string, unknown>][] = [
    ['ada', { firstName: 'Ada', plan: 'pro', score: 90, tags: 'customer, vip' }],
    ['bob', { firstName: 'Bob', plan: 'free', score: 10, tags: 'lead' }],
    ['cyd', { firstName: 'Cyd', plan: 'pro', score: 40, tags: 'customer', renewal: '2030-05-01' }],
    ['dee', { firstName: 'Dee', plan: 'starter' }],
  ];
  for (const [key, values] of people) {
    const res = await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail(key), ...values });
    expect(res.status).toBe(201);
    ids[key] = res.body.user.id;
  }
});
afterAll(() => ctx.close());

const create = (body: Record<string, unknown>, client: Client = owner.client) =>
  client.post('/v1/segments/', body);

describe('segments', () => {
  it('lists the automatic segments of a new account, All People first and the virtual Archived (id 1) second', async () => {
    const res = await owner.client.get('/v1/segments');
    expect(res.status).toBe(200);
    const auto = res.body.segments.filter((s: { autoSegment: boolean }) => s.autoSegment);
    expect(auto.map((s: { name: string }) => s.name)).toEqual([
      'All People',
      'Archived',
      'Unsubscribed',
      'New',
      'Engaged',
      'Need some love',
    ]);
    expect(auto[1]).toMatchObject({ id: 1, autoType: 'archived' });
    const colours = Object.fromEntries(
      auto.map((s: { autoType: string; color: string }) => [s.autoType, s.color]),
    );
    expect(colours).toMatchObject({ new: '#40c057', engaged: '#228be6', needSomeLove: '#fa5252' });
    expect(auto.find((s: { autoType: string }) => s.autoType === 'new').conditions).toEqual([
      { type: 'created', operator: 'withinLast', value: 30 },
    ]);
  });

  it('creates, previews, pages, saves and deletes a segment', async () => {
    const created = await create({
      name: 'Pro customers',
      color: '#228be6',
      conditions: [planIs('pro'), tag('customer')],
    });
    expect(created.status).toBe(201);
    expect(created.body.message).toBe(segmentMessages.saved);
    const id = created.body.segment.id;
    expect(id).toBeGreaterThanOrEqual(100);

    expect((await owner.client.get(`/v1/segments/${id}/preview`)).body).toEqual({ totalCount: 2 });
    const page = await owner.client.get(`/v1/segments/${id}/people?limit=1&sort=firstName&order=asc`);
    expect(page.body.users.map((u: { firstName: string }) => u.firstName)).toEqual(['Ada']);
    expect(page.body.hasMore).toBe(true);
    const next = await owner.client.get(
      `/v1/segments/${id}/people?limit=1&offset=1&sort=firstName&order=asc`,
    );
    expect(next.body).toMatchObject({ users: [{ firstName: 'Cyd' }], hasMore: false });

    const saved = await owner.client.patch(`/v1/segments/${id}`, {
      ...created.body.segment,
      name: 'VIP pros',
      conditions: [planIs('pro'), tag('vip')],
      preview: { totalCount: 2 },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ message: segmentMessages.saved, segment: { name: 'VIP pros' } });
    expect((await owner.client.get(`/v1/segments/${id}/preview`)).body.totalCount).toBe(1);

    const deleted = await owner.client.request('DELETE', `/v1/segments/${id}`);
    expect(deleted.body.message).toBe(segmentMessages.deleted);
    expect((await owner.client.get(`/v1/segments/${id}/preview`)).status).toBe(404);
  });

  it('rebuilds only when the conditions really change, whatever the order of their keys', async () => {
    const seg = (await create({ name: 'Stable', conditions: [planIs('pro'), tag('customer')] })).body.segment;
    const version = async () =>
      (
        await ctx.services.db
          .selectFrom('segments')
          .select('version')
          .where('id', '=', seg.id)
          .executeTakeFirstOrThrow()
      ).version;
    const reordered = [
      { value: 'pro', operator: 'equals', field: 'plan', type: 'field' },
      { tag: 'customer', type: 'tag', operator: 'has' },
    ];
    expect(
      (
        await owner.client.patch(`/v1/segments/${seg.id}`, {
          id: seg.id,
          name: 'Stable, renamed',
          conditions: reordered,
        })
      ).status,
    ).toBe(200);
    expect(await version()).toBe(1);
    expect(
      (
        await owner.client.patch(`/v1/segments/${seg.id}`, {
          id: seg.id,
          name: 'Stable, renamed',
          conditions: [planIs('pro')],
        })
      ).status,
    ).toBe(200);
    expect(await version()).toBe(2);
  });

  it('counts an unsaved tree and explains a person, condition by condition', async () => {
    const tree: ConditionNode[] = [
      {
        type: 'group',
        operator: 'or',
        conditions: [planIs('free'), { type: 'field', field: 'score', operator: 'greaterThan', value: 50 }],
      },
      { type: 'field', field: 'renewal', operator: 'isNotSet' },
    ];
    expect((await owner.client.post('/v1/segments/preview', { conditions: tree })).body).toEqual({
      totalCount: 2,
    });
    const seg = (await create({ name: 'Explained', conditions: tree })).body.segment;
    const ada = await owner.client.post(`/v1/segments/${seg.id}/explain`, { personId: ids.ada });
    expect(ada.body.matches).toBe(true);
    expect(ada.body.verdicts[0]).toMatchObject({
      matches: true,
      children: [{ matches: false }, { matches: true }],
    });
    const cyd = await owner.client.post(`/v1/segments/${seg.id}/explain`, { personId: ids.cyd });
    expect(cyd.body.matches).toBe(false);
    expect(cyd.body.verdicts.map((v: { matches: boolean }) => v.matches)).toEqual([false, false]);
    const unsaved = await owner.client.post(`/v1/segments/${seg.id}/explain`, {
      personId: ids.cyd,
      conditions: [tag('customer')],
    });
    expect(unsaved.body.matches).toBe(true);
    expect(
      (await owner.client.post(`/v1/segments/${seg.id}/explain`, { personId: 999_999_999 })).status,
    ).toBe(404);
  });

  it('lists archived people in the virtual Archived segment and leaves them out of the others', async () => {
    const person = await owner.client.post('/v1/people/?source=manual', {
      email: uniqueEmail('gone'),
      plan: 'pro',
      tags: 'customer',
    });
    await ctx.services.db
      .updateTable('people')
      .set({ archivedAt: new Date() })
      .where('id', '=', person.body.user.id)
      .execute();
    const archived = await owner.client.get('/v1/segments/1/people');
    expect(archived.body.users.map((u: { id: number }) => u.id)).toEqual([person.body.user.id]);
    expect(
      (await owner.client.post('/v1/segments/preview', { conditions: [planIs('pro'), tag('customer')] })).body
        .totalCount,
    ).toBe(2);
    expect(
      (
        await owner.client.post('/v1/segments/preview', {
          conditions: [{ type: 'status', status: 'archived' }],
        })
      ).body.totalCount,
    ).toBe(1);
    expect((await owner.client.patch('/v1/segments/1', { id: 1, name: 'Mine' })).status).toBe(400);
    expect((await owner.client.request('DELETE', '/v1/segments/1')).status).toBe(400);
  });

  it.each<[string, unknown, string]>([
    [
      'an unknown field',
      [{ type: 'field', field: 'shoeSize', operator: 'equals', value: 'x' }],
      segmentMessages.unknownField('shoeSize'),
    ],
    [
      'an operator not for the type',
      [{ type: 'field', field: 'score', operator: 'contains', value: '1' }],
      segmentMessages.operatorNotForType('contains', 'number'),
    ],
    [
      'a malformed date',
      [{ type: 'field', field: 'renewal', operator: 'before', value: '2024-02-30' }],
      'Dates are written YYYY-MM-DD.',
    ],
    [
      'a non-numeric number',
      [{ type: 'field', field: 'score', operator: 'greaterThan', value: 'many' }],
      segmentMessages.valueNotOfType('score', 'number'),
    ],
    ['a duplicate condition', [tag('vip'), tag('vip')], segmentMessages.duplicateCondition],
    [
      'an unknown segment',
      [{ type: 'segment', operator: 'in', segmentId: 987_654 }],
      segmentMessages.unknownSegment(987_654),
    ],
    [
      'a tree 50 levels deep',
      [
        Array.from({ length: 50 }).reduce<unknown>(
          (inner) => ({ type: 'group', operator: 'and', conditions: [inner] }),
          tag('vip'),
        ),
      ],
      segmentMessages.tooDeep(10),
    ],
    ['1,000 conditions', Array.from({ length: 1000 }, (_, i) => tag(`t${i}`)), segmentMessages.tooMany(100)],
  ])('refuses %s with a clear 400 and saves nothing', async (_label, conditions, message) => {
    const before = (await owner.client.get('/v1/segments')).body.segments.length;
    const res = await create({ name: 'Bad', conditions });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(JSON.stringify(message).slice(1, -1));
    expect((await owner.client.post('/v1/segments/preview', { conditions })).status).toBe(400);
    expect((await owner.client.get('/v1/segments')).body.segments.length).toBe(before);
  });

  it('refuses a segment that includes itself, directly or through another, and a delete while in use', async () => {
    const a = (await create({ name: 'A', conditions: [tag('vip')] })).body.segment;
    const self = await owner.client.patch(`/v1/segments/${a.id}`, {
      id: a.id,
      name: 'A',
      conditions: [{ type: 'segment', operator: 'in', segmentId: a.id }],
    });
    expect(self.status).toBe(400);
    expect(self.body.message).toBe(segmentMessages.cycle);
    const b = (
      await create({ name: 'B', conditions: [{ type: 'segment', operator: 'in', segmentId: a.id }] })
    ).body.segment;
    expect((await owner.client.get(`/v1/segments/${b.id}/preview`)).body.totalCount).toBe(1);
    const loop = await owner.client.patch(`/v1/segments/${a.id}`, {
      id: a.id,
      name: 'A',
      conditions: [{ type: 'segment', operator: 'notIn', segmentId: b.id }],
    });
    expect(loop.body.message).toBe(segmentMessages.cycle);
    const inUse = await owner.client.request('DELETE', `/v1/segments/${a.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.message).toContain('"B"');
  });

  it('needs a name, matching ids, and leaves automatic segments alone', async () => {
    expect((await create({ name: '  ' })).body.message).toBe(segmentMessages.nameRequired);
    const seg = (await create({ name: 'Named' })).body.segment;
    expect((await owner.client.patch(`/v1/segments/${seg.id}`, { name: 'No id' })).status).toBe(400);
    expect((await owner.client.patch(`/v1/segments/${seg.id}`, { id: seg.id })).body.message).toBe(
      segmentMessages.nameRequired,
    );
    expect((await owner.client.patch(`/v1/segments/${seg.id}`, { id: seg.id + 1, name: 'X' })).status).toBe(
      400,
    );
    const allPeople = (await owner.client.get('/v1/segments')).body.segments[0];
    expect(
      (await owner.client.patch(`/v1/segments/${allPeople.id}`, { id: allPeople.id, name: 'Mine' })).body
        .message,
    ).toBe(segmentMessages.automatic);
  });

  it("does not show or change another account's segments", async () => {
    const seg = (await create({ name: 'Private', conditions: [tag('vip')] })).body.segment;
    const other = await registerUser(ctx.app);
    expect((await other.client.get(`/v1/segments/${seg.id}/people`)).status).toBe(404);
    expect((await other.client.get(`/v1/segments/${seg.id}/preview`)).status).toBe(404);
    expect((await other.client.patch(`/v1/segments/${seg.id}`, { id: seg.id, name: 'Taken' })).status).toBe(
      404,
    );
    expect((await other.client.request('DELETE', `/v1/segments/${seg.id}`)).status).toBe(404);
    expect(
      (await other.client.get('/v1/segments')).body.segments.some((s: { id: number }) => s.id === seg.id),
    ).toBe(false);
    expect((await owner.client.get(`/v1/segments/${seg.id}/preview`)).body.totalCount).toBe(1);
  });

  it('needs people:read to read segments and people:write to change them', async () => {
    const email = uniqueEmail('reader');
    const scopes = scopeIds.map((id) => ({ id, enabled: id === 'people:read' || id === 'emails:read' }));
    await owner.client.post('/v1/team-members', { name: 'Reader', email, scopes });
    const mail = await ctx.services.db
      .selectFrom('mailDeliveries')
      .select('textBody')
      .where('toAddress', '=', email)
      .executeTakeFirstOrThrow();
    const token = /accept-invite\?token=([^\s"<]+)/.exec(mail.textBody ?? '')![1]!;
    const reader = new Client(ctx.app);
    expect(
      (await reader.post('/v1/team-members/invitations/accept', { token, password: 'reader password 1' }))
        .status,
    ).toBe(200);
    expect((await reader.get('/v1/segments')).status).toBe(200);
    const refused = await create({ name: 'Nope' }, reader);
    expect(refused.status).toBe(403);
  });

  it('suggests the event names the account tracks', async () => {
    const person = await ctx.services.db
      .selectFrom('people')
      .select('email')
      .where('id', '=', ids.ada!)
      .executeTakeFirstOrThrow();
    const writeKey = owner.account.writeKey;
    const sent = await owner.client.post(
      '/v1/ingest',
      { type: 'track', email: person.email, name: 'Signed up' },
      { headers: { 'x-write-key': writeKey } },
    );
    expect(sent.status).toBeLessThan(300);
    expect((await owner.client.get('/v1/segments/event-names')).body.names).toContain('Signed up');
  });
});
