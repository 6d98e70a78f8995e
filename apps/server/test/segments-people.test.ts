import { sql } from 'kysely';
import { scopeIds, segmentMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBulkAction } from '../src/features/bulk/bulk.service.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
let accountId: number;
let segmentId: number;
/** People of the segment by key, with their ids. */
const ids: Record<string, number> = {};

/**
 * Five tagged people with known names and creation times (two created at the same instant, so the id
 * breaks the tie), one without an email, one archived, and one not tagged.
 */
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  const first = await owner.client.post('/v1/people/?source=manual', {
    email: uniqueEmail('first'),
    firstName: 'Zed',
    tags: 'club',
  });
  expect(first.status).toBe(201);
  ids.zed = first.body.user.id;
  const row = await ctx.services.db
    .selectFrom('people')
    .select('accountId')
    .where('id', '=', ids.zed!)
    .executeTakeFirstOrThrow();
  accountId = row.accountId;
  const insert = async (
    key: string,
    values: {
      email: string | null;
      firstName: string | null;
      lastName: string | null;
      createdAt: string;
      tags: string[];
      archived?: boolean;
    },
  ) => {
    const { rows } = await sql<{
      id: number;
    }>`insert into people (account_id, email, first_name, last_name, created_at, tags, archived_at, anonymous_id)
      values (${accountId}, ${values.email}, ${values.firstName}, ${values.lastName}, ${values.createdAt}::timestamptz, ${values.tags}::text[],
        ${values.archived ? sql`now()` : sql`null`}, ${values.email ? null : `anon-${key}`})
      returning id`.execute(ctx.services.db);
    ids[key] = rows[0]!.id;
  };
  await sql`update people set created_at = '2024-01-05T00:00:00Z', last_name = 'Young' where id = ${ids.zed}`.execute(
    ctx.services.db,
  );
  await insert('amy', {
    email: 'amy@example.com',
    firstName: 'Amy',
    lastName: 'Stone',
    createdAt: '2024-01-01T00:00:00Z',
    tags: ['club'],
  });
  await insert('bea', {
    email: 'bea@example.com',
    firstName: 'Bea',
    lastName: null,
    createdAt: '2024-01-03T00:00:00Z',
    tags: ['club'],
  });
  await insert('cal', {
    email: 'cal@example.com',
    firstName: 'Cal',
    lastName: 'Adams',
    createdAt: '2024-01-03T00:00:00Z',
    tags: ['club'],
  });
  await insert('anon', {
    email: null,
    firstName: null,
    lastName: null,
    createdAt: '2024-01-04T00:00:00Z',
    tags: ['club'],
  });
  await insert('gone', {
    email: 'gone@example.com',
    firstName: 'Gus',
    lastName: 'Gone',
    createdAt: '2024-01-02T00:00:00Z',
    tags: ['club'],
    archived: true,
  });
  await insert('out', {
    email: 'out@example.com',
    firstName: 'Otto',
    lastName: 'Out',
    createdAt: '2024-01-02T00:00:00Z',
    tags: [],
  });
  const created = await owner.client.post('/v1/segments/', {
    name: 'Club',
    conditions: [{ type: 'tag', operator: 'has', tag: 'club' }],
  });
  expect(created.status).toBe(201);
  segmentId = created.body.segment.id;
});
afterAll(() => ctx.close());

/** The keys of the people on one page of the segment. */
async function page(
  query: string,
  id = segmentId,
): Promise<{ keys: string[]; hasMore: boolean; status: number }> {
  const res = await owner.client.get(`/v1/segments/${id}/people${query}`);
  const byId = new Map(Object.entries(ids).map(([k, v]) => [v, k]));
  return {
    status: res.status,
    keys: (res.body.users ?? []).map((u: { id: number }) => byId.get(u.id) ?? String(u.id)),
    hasMore: res.body.hasMore,
  };
}

describe("a segment's people", () => {
  it('come newest first by default, the id breaking ties, without archived people', async () => {
    const res = await page('');
    expect(res.status).toBe(200);
    // cal and bea share a creation time: the later id (cal) comes first when descending.
    expect(res.keys).toEqual(['zed', 'anon', 'cal', 'bea', 'amy']);
    expect(res.hasMore).toBe(false);
    expect((await page('?order=asc')).keys).toEqual(['amy', 'bea', 'cal', 'anon', 'zed']);
    expect((await owner.client.get(`/v1/segments/${segmentId}/preview`)).body).toEqual({ totalCount: 5 });
  });

  it('sort by a whitelisted column, people without a value last', async () => {
    expect((await page('?sort=firstName&order=asc')).keys).toEqual(['amy', 'bea', 'cal', 'zed', 'anon']);
    expect((await page('?sort=lastName&order=asc')).keys).toEqual(['cal', 'amy', 'zed', 'bea', 'anon']);
    expect((await page('?sort=email&order=asc')).keys).toEqual(['amy', 'bea', 'cal', 'zed', 'anon']);
    expect((await page('?sort=email&order=desc')).keys).toEqual(['zed', 'cal', 'bea', 'amy', 'anon']);
    expect((await page('?sort=first_name')).status).toBe(400);
    expect((await page('?sort=createdAt;drop table people')).status).toBe(400);
    expect((await page('?order=sideways')).status).toBe(400);
  });

  it('page with limit and offset and tell whether more follow', async () => {
    expect(await page('?limit=2')).toEqual({ status: 200, keys: ['zed', 'anon'], hasMore: true });
    expect(await page('?limit=2&offset=2')).toEqual({ status: 200, keys: ['cal', 'bea'], hasMore: true });
    expect(await page('?limit=2&offset=4')).toEqual({ status: 200, keys: ['amy'], hasMore: false });
    expect(await page('?limit=2&offset=10')).toEqual({ status: 200, keys: [], hasMore: false });
    expect((await page('?limit=0')).status).toBe(400);
    expect((await page('?limit=501')).status).toBe(400);
  });

  it('leave out people without an email when asked', async () => {
    expect((await page('?ignoreAnonymous=true')).keys).toEqual(['zed', 'cal', 'bea', 'amy']);
    expect((await page('?ignoreAnonymous=false')).keys).toContain('anon');
  });

  it('of the virtual Archived segment are the archived people, and it counts them', async () => {
    expect((await page('', 1)).keys).toEqual(['gone']);
    expect((await owner.client.get('/v1/segments/1/preview')).body).toEqual({ totalCount: 1 });
    const list = await owner.client.get('/v1/segments');
    expect(list.body.segments.find((s: { id: number }) => s.id === 1)).toMatchObject({
      name: 'Archived',
      memberCount: 1,
      conditions: [],
    });
  });

  it('of All People are everyone not archived', async () => {
    const allPeople = (await owner.client.get('/v1/segments')).body.segments.find(
      (s: { autoType: string }) => s.autoType === 'allPeople',
    );
    expect((await owner.client.get(`/v1/segments/${allPeople.id}/preview`)).body).toEqual({ totalCount: 6 });
    expect((await page('?limit=500', allPeople.id)).keys).not.toContain('gone');
  });

  it('answer 503 "still building" instead of hanging when the people table is locked', async () => {
    const blocker = await ctx.services.pool.connect();
    try {
      await blocker.query('begin');
      await blocker.query('lock table people in access exclusive mode');
      const started = Date.now();
      const [count, people] = await Promise.all([
        owner.client.get(`/v1/segments/${segmentId}/preview`),
        owner.client.get(`/v1/segments/${segmentId}/people`),
      ]);
      expect(count.status).toBe(503);
      expect(count.body.message).toBe(segmentMessages.stillBuilding);
      expect(people.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await blocker.query('rollback');
      blocker.release();
    }
    expect((await owner.client.get(`/v1/segments/${segmentId}/preview`)).body).toEqual({ totalCount: 5 });
  });
});

describe('bulk actions by segment', () => {
  it('tag the people the segment holds when the job runs', async () => {
    const started = await owner.client.post('/v1/tags/bulk', { tag: 'club-member', segmentId });
    expect(started.status).toBe(202);
    await runBulkAction(ctx.services, accountId, started.body.bulkActionId);
    expect((await owner.client.get(`/v1/bulk-actions/${started.body.bulkActionId}`)).body).toMatchObject({
      status: 'done',
      total: 5,
      done: 5,
    });
    const tagged = await owner.client.post('/v1/segments/preview', {
      conditions: [{ type: 'tag', operator: 'has', tag: 'club-member' }],
    });
    expect(tagged.body.totalCount).toBe(5);
  });

  it('fail, without retrying, when the segment was deleted before the job ran', async () => {
    const seg = (
      await owner.client.post('/v1/segments/', {
        name: 'Short-lived',
        conditions: [{ type: 'tag', operator: 'has', tag: 'club' }],
      })
    ).body.segment;
    const started = await owner.client.post('/v1/tags/bulk', { tag: 'never', segmentId: seg.id });
    expect(started.status).toBe(202);
    expect((await owner.client.request('DELETE', `/v1/segments/${seg.id}`)).status).toBe(200);
    await runBulkAction(ctx.services, accountId, started.body.bulkActionId);
    const state = await owner.client.get(`/v1/bulk-actions/${started.body.bulkActionId}`);
    expect(state.body).toMatchObject({ status: 'failed', result: { error: segmentMessages.notFound } });
    expect(
      (
        await owner.client.post('/v1/segments/preview', {
          conditions: [{ type: 'tag', operator: 'has', tag: 'never' }],
        })
      ).body.totalCount,
    ).toBe(0);
  });
});

describe('event name suggestions', () => {
  it('list tracked event names once each, most recently seen first, not page views', async () => {
    const writeKey = { headers: { 'x-write-key': owner.account.writeKey } };
    const email = (
      await ctx.services.db
        .selectFrom('people')
        .select('email')
        .where('id', '=', ids.amy!)
        .executeTakeFirstOrThrow()
    ).email;
    const batch = (names: string[]) =>
      owner.client.post(
        '/v1/ingest/batch',
        { batch: names.map((name) => ({ type: 'track', email, name })) },
        writeKey,
      );
    expect((await batch(['Signed up', 'Signed up', 'Invited'])).status).toBeLessThan(300);
    await owner.client.post(
      '/v1/ingest',
      { type: 'page', email, url: 'https://example.com/pricing', name: 'Pricing' },
      writeKey,
    );
    await sql`update event_names set last_seen_at = now() - interval '1 day' where account_id = ${accountId}`.execute(
      ctx.services.db,
    );
    expect((await batch(['Order completed'])).status).toBeLessThan(300);
    const names = (await owner.client.get('/v1/segments/event-names')).body.names;
    expect(names[0]).toBe('Order completed');
    expect([...names].sort()).toEqual(['Invited', 'Order completed', 'Signed up']);
    // A name seen again moves to the front (its sighting a day ago is older than a minute).
    expect((await batch(['Invited'])).status).toBeLessThan(300);
    expect((await owner.client.get('/v1/segments/event-names')).body.names[0]).toBe('Invited');
    const other = await registerUser(ctx.app);
    expect((await other.client.get('/v1/segments/event-names')).body.names).toEqual([]);
  });
});

describe('segment scopes', () => {
  /** A team member with only the given scopes enabled, signed in. */
  async function memberWith(enabled: string[]) {
    const email = uniqueEmail('member');
    const scopes = scopeIds.map((id) => ({ id, enabled: enabled.includes(id) }));
    expect(
      (await owner.client.post('/v1/team-members', { name: 'Member', email, scopes })).status,
    ).toBeLessThan(300);
    const mail = await ctx.services.db
      .selectFrom('mailDeliveries')
      .select('textBody')
      .where('toAddress', '=', email)
      .executeTakeFirstOrThrow();
    const token = /accept-invite\?token=([^\s"<]+)/.exec(mail.textBody ?? '')![1]!;
    const member = new Client(ctx.app);
    expect(
      (await member.post('/v1/team-members/invitations/accept', { token, password: 'member password 1' }))
        .status,
    ).toBe(200);
    return member;
  }

  it('without people:read every segment read is refused', async () => {
    const member = await memberWith(['emails:read']);
    for (const url of [
      '/v1/segments',
      `/v1/segments/${segmentId}/preview`,
      `/v1/segments/${segmentId}/people`,
      '/v1/segments/event-names',
      `/v1/people/${ids.amy}/segments`,
    ]) {
      expect([url, (await member.get(url)).status]).toEqual([url, 403]);
    }
    expect((await member.post('/v1/segments/preview', { conditions: [] })).status).toBe(403);
    expect((await member.post(`/v1/segments/${segmentId}/explain`, { personId: ids.amy })).status).toBe(403);
  });

  it('with people:read but not people:write, reads work and writes are refused', async () => {
    const member = await memberWith(['people:read', 'emails:read']);
    expect((await member.get(`/v1/segments/${segmentId}/preview`)).body).toEqual({ totalCount: 5 });
    expect((await member.post('/v1/segments/', { name: 'Nope' })).status).toBe(403);
    expect((await member.patch(`/v1/segments/${segmentId}`, { id: segmentId, name: 'Nope' })).status).toBe(
      403,
    );
    expect((await member.request('DELETE', `/v1/segments/${segmentId}`)).status).toBe(403);
    expect((await owner.client.get(`/v1/segments/${segmentId}/preview`)).status).toBe(200);
  });
});
