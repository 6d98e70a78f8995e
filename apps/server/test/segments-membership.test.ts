import { sql } from 'kysely';
import type { ConditionNode } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { holdSegmentRefreshes, holdSegmentRefreshesUntilCommit, refreshesFree } from '../src/db/refresh-hold.ts';
import { applyMembership } from '../src/features/segments/membership.queries.ts';
import { runDirtyRefresh, runSegmentRefresh } from '../src/features/segments/segments.jobs.ts';
import { peopleColumnsMarkedAny } from '../src/db/migrations/0039-segment-marks-by-change.ts';
import { fieldDeleteBusy } from '../src/features/fields/fields.service.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { waitingOnALock } from './lock-waits.ts';
import { until } from './until.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
let accountId: number;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  accountId = owner.account.accountId ?? owner.account.account?.id;
  if (!accountId) {
    const row = await ctx.services.db.selectFrom('accounts').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    accountId = row.id;
  }
  await owner.client.post('/v1/fields', { items: [{ name: 'city', type: 'string' }] });
  await ctx.startWorker();
});
afterAll(() => ctx.close());

async function members(segmentId: number): Promise<number[]> {
  const rows = await ctx.services.db.selectFrom('segmentMembers').select('personId').where('accountId', '=', accountId).where('segmentId', '=', segmentId).orderBy('personId').execute();
  return rows.map((r) => r.personId);
}

/** The kept member count the segment list shows. */
async function memberCount(segmentId: number): Promise<number | null> {
  const list = await owner.client.get('/v1/segments');
  return list.body.segments.find((s: { id: number }) => s.id === segmentId).memberCount;
}

async function segmentEvents(segmentId: number) {
  const { rows } = await sql<{ personId: number; name: string }>`select person_id, name from events
    where account_id = ${accountId} and type = 'segment' and (data ->> 'segmentId')::bigint = ${segmentId} order by id`.execute(ctx.services.db);
  return rows;
}

/** Wait (at most 15 s) until the members are `expected`; the seconds it took. */
async function waitForMembers(segmentId: number, expected: number[]): Promise<number> {
  const started = Date.now();
  const wanted = JSON.stringify([...expected].sort((a, b) => a - b));
  await until(async () => JSON.stringify(await members(segmentId)) === wanted, {
    timeout: 15_000,
    message: async () => `members of ${segmentId}: ${JSON.stringify(await members(segmentId))}, expected ${wanted}`,
  });
  return (Date.now() - started) / 1000;
}

/** Wait until a segment's first build is done (its kept count is set); later changes record events. */
async function waitForFirstBuild(segmentId: number): Promise<void> {
  await until(async () => (await memberCount(segmentId)) !== null, { timeout: 15_000, message: `segment ${segmentId} built` });
}

async function addPerson(values: Record<string, unknown>) {
  const res = await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('member'), ...values });
  expect(res.status).toBe(201);
  return res.body.user as { id: number; email: string };
}

async function createSegment(name: string, conditions: ConditionNode[]) {
  const res = await owner.client.post('/v1/segments/', { name, conditions });
  expect(res.status).toBe(201);
  return res.body.segment as { id: number };
}

describe('segment membership', () => {
  it('builds a new segment without entry events, then follows field, tag and event changes within seconds', async () => {
    const berliner = await addPerson({ city: 'Berlin' });
    const other = await addPerson({ city: 'Paris' });
    const seg = await createSegment('Berliners', [{ type: 'field', field: 'city', operator: 'equals', value: 'berlin' }]);
    await waitForMembers(seg.id, [berliner.id]);
    expect(await segmentEvents(seg.id)).toEqual([]);

    // A field change: the person enters, with an event.
    await owner.client.patch(`/v1/people/${other.id}`, { city: 'Berlin' });
    const seconds = await waitForMembers(seg.id, [berliner.id, other.id]);
    expect(seconds).toBeLessThan(10);
    expect(await segmentEvents(seg.id)).toEqual([{ personId: other.id, name: 'entered' }]);

    // And leaves again.
    await owner.client.patch(`/v1/people/${berliner.id}`, { city: 'Munich' });
    await waitForMembers(seg.id, [other.id]);
    expect((await segmentEvents(seg.id)).at(-1)).toEqual({ personId: berliner.id, name: 'left' });

    // A tag, and an ingested event.
    const tagged = await createSegment('Tagged', [{ type: 'tag', operator: 'has', tag: 'vip' }]);
    const buyers = await createSegment('Buyers', [{ type: 'event', name: 'Order completed', count: { operator: 'atLeast', value: 1 }, window: { type: 'inTheLast', days: 7 }, properties: [] }]);
    await waitForMembers(tagged.id, []);
    await owner.client.post('/v1/tags/', { tag: 'vip', id: other.id });
    await waitForMembers(tagged.id, [other.id]);
    await owner.client.post('/v1/ingest', { type: 'track', email: berliner.email, name: 'Order completed' }, { headers: { 'x-write-key': owner.account.writeKey } });
    await waitForMembers(buyers.id, [berliner.id]);

    // The person page lists the segments a person is in.
    const mine = await owner.client.get(`/v1/people/${other.id}/segments`);
    expect(mine.body.segments.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(['Berliners', 'Tagged']));
    expect((await owner.client.get('/v1/segments')).body.segments.find((s: { id: number }) => s.id === tagged.id).memberCount).toBe(1);
  });

  it('rebuilds members when the conditions change and drops them when a person is deleted', async () => {
    const a = await addPerson({ city: 'Oslo' });
    const b = await addPerson({ city: 'Bergen' });
    const seg = await createSegment('Norway', [{ type: 'field', field: 'city', operator: 'equals', value: 'Oslo' }]);
    await waitForMembers(seg.id, [a.id]);
    await owner.client.patch(`/v1/segments/${seg.id}`, { id: seg.id, name: 'Norway', conditions: [{ type: 'field', field: 'city', operator: 'equals', value: 'Bergen' }] });
    await waitForMembers(seg.id, [b.id]);
    expect(await segmentEvents(seg.id)).toEqual(expect.arrayContaining([{ personId: b.id, name: 'entered' }, { personId: a.id, name: 'left' }]));
    await owner.client.request('DELETE', `/v1/people?force=true&id=${b.id}`);
    expect(await members(seg.id)).toEqual([]);
    expect(await memberCount(seg.id)).toBe(0);
  });

  it('archiving a segment in bulk takes its people out of every segment, with left events; restoring brings them back', async () => {
    const a = await addPerson({ city: 'Turin' });
    const b = await addPerson({ city: 'Turin' });
    const seg = await createSegment('Turin', [{ type: 'field', field: 'city', operator: 'equals', value: 'Turin' }]);
    const tagged = await createSegment('Turin tagged', [{ type: 'tag', operator: 'has', tag: 'torino' }]);
    await waitForFirstBuild(tagged.id);
    await owner.client.post('/v1/tags/', { tag: 'torino', id: a.id });
    await waitForMembers(seg.id, [a.id, b.id]);
    await waitForMembers(tagged.id, [a.id]);
    expect((await owner.client.request('DELETE', '/v1/people/bulk', { body: { segmentId: seg.id } })).status).toBe(202);
    await waitForMembers(seg.id, []);
    await waitForMembers(tagged.id, []);
    expect(await memberCount(seg.id)).toBe(0);
    expect(await segmentEvents(seg.id)).toEqual(expect.arrayContaining([{ personId: a.id, name: 'left' }, { personId: b.id, name: 'left' }]));
    expect(await segmentEvents(tagged.id)).toEqual([{ personId: a.id, name: 'entered' }, { personId: a.id, name: 'left' }]);
    expect((await owner.client.get('/v1/segments/1/people')).body.users.map((u: { id: number }) => u.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect((await owner.client.post('/v1/people/restore', { people: [a.id] })).status).toBe(202);
    await waitForMembers(seg.id, [a.id]);
    await waitForMembers(tagged.id, [a.id]);
    expect(await memberCount(tagged.id)).toBe(1);
  });

  it('repeats nothing when a refresh runs again (a retry after a crash)', async () => {
    const p = await addPerson({ city: 'Rome' });
    const seg = await createSegment('Romans', [{ type: 'field', field: 'city', operator: 'equals', value: 'Rome' }]);
    await waitForMembers(seg.id, [p.id]);
    await owner.client.patch(`/v1/people/${p.id}`, { city: 'Milan' });
    await waitForMembers(seg.id, []);
    const events = await segmentEvents(seg.id);
    // Mark the person again by hand and run both refreshes twice: nothing changes, no event is added.
    await sql`insert into segment_dirty_people (account_id, person_id) values (${accountId}, ${p.id})`.execute(ctx.services.db);
    await runDirtyRefresh(ctx.services, accountId);
    await runDirtyRefresh(ctx.services, accountId);
    await runSegmentRefresh(ctx.services, accountId, seg.id);
    await runSegmentRefresh(ctx.services, accountId, seg.id);
    expect(await segmentEvents(seg.id)).toEqual(events);
    expect(await members(seg.id)).toEqual([]);
  });

  it('a change made while a segment is rebuilt reaches the other segments at once, and that one after the rebuild', async () => {
    const p = await addPerson({ city: 'Graz' });
    const busy = await createSegment('Graz busy', [{ type: 'field', field: 'city', operator: 'equals', value: 'Linz' }]);
    const free = await createSegment('Graz free', [{ type: 'field', field: 'city', operator: 'equals', value: 'Linz' }, { type: 'tag', operator: 'hasNot', tag: 'x' }]);
    await waitForFirstBuild(busy.id);
    await waitForFirstBuild(free.id);
    // Hold the busy segment's membership lock, as a long rebuild would.
    const rebuild = await ctx.services.pool.connect();
    try {
      await rebuild.query(`select pg_advisory_lock(hashtextextended('segment-membership', $1::bigint))`, [busy.id]);
      await owner.client.patch(`/v1/people/${p.id}`, { city: 'Linz' });
      expect(await waitForMembers(free.id, [p.id])).toBeLessThan(10);
      expect(await members(busy.id)).toEqual([]);
    } finally {
      await rebuild.query(`select pg_advisory_unlock(hashtextextended('segment-membership', $1::bigint))`, [busy.id]);
      rebuild.release();
    }
    expect(await waitForMembers(busy.id, [p.id])).toBeLessThan(10);
    expect(await segmentEvents(busy.id)).toEqual([{ personId: p.id, name: 'entered' }]);
    expect(await segmentEvents(free.id)).toEqual([{ personId: p.id, name: 'entered' }]);
  });

  it("holds an account's refreshes while an import merges, and follows the changes once it is done", async () => {
    const p = await addPerson({ city: 'Porto' });
    const seg = await createSegment('Braga', [{ type: 'field', field: 'city', operator: 'equals', value: 'Braga' }]);
    await waitForFirstBuild(seg.id);
    const release = await holdSegmentRefreshes(ctx.services.pool, accountId);
    let later = 0;
    try {
      await owner.client.patch(`/v1/people/${p.id}`, { city: 'Braga' });
      // A segment saved meanwhile is built after the import too.
      const saved = await createSegment('Braga too', [{ type: 'field', field: 'city', operator: 'equals', value: 'Braga' }]);
      // The new segment's build ran and, finding the refreshes held, marked the account for later; no job is left
      // (the poller queues nothing for an account whose refreshes are held).
      await until(async () => (await sql`select 1 from segment_dirty_accounts where account_id = ${accountId}`.execute(ctx.services.db)).rows.length > 0, { timeout: 15_000, message: 'the account marked for a rebuild' });
      await queueDrained(ctx.services.pool);
      expect(await members(seg.id)).toEqual([]);
      expect(await memberCount(saved.id)).toBeNull();
      later = saved.id;
    } finally {
      await release();
    }
    expect(await waitForMembers(seg.id, [p.id])).toBeLessThan(10);
    expect(await waitForMembers(later, [p.id])).toBeLessThan(10);
  });

  it('writes nothing for a refresh computed for conditions that changed meanwhile', async () => {
    const p = await addPerson({ city: 'Nice' });
    const seg = await createSegment('Nice', [{ type: 'field', field: 'city', operator: 'equals', value: 'Nice' }]);
    await waitForMembers(seg.id, [p.id]);
    const stale = await withAccount(ctx.services.db, accountId, (db) => applyMembership(db, accountId, { id: seg.id, version: 0 }, sql`false`, null, true));
    expect(stale).toEqual({ entered: 0, left: 0, applied: false });
    expect(await members(seg.id)).toEqual([p.id]);
    expect(await segmentEvents(seg.id)).toEqual([]);
    expect(await memberCount(seg.id)).toBe(1);
  });

  it('writes nothing, and does not fail, for a segment deleted while its refresh runs', async () => {
    const p = await addPerson({ city: 'Cannes' });
    const seg = await createSegment('Cannes', [{ type: 'field', field: 'city', operator: 'equals', value: 'Antibes' }]);
    await waitForFirstBuild(seg.id);
    const { version } = await ctx.services.db.selectFrom('segments').select('version').where('id', '=', seg.id).executeTakeFirstOrThrow();
    // Another transaction deletes the segment and commits only after the refresh has started.
    const deleter = await ctx.services.pool.connect();
    try {
      await deleter.query('begin');
      await deleter.query('delete from segments where id = $1', [seg.id]);
      const refresh = withAccount(ctx.services.db, accountId, (db) => applyMembership(db, accountId, { id: seg.id, version }, sql`true`, [p.id], true));
      // The refresh has started: its key-share lock on the segment waits for the delete.
      await waitingOnALock(ctx.services.pool, 'for key share');
      await deleter.query('commit');
      expect(await refresh).toEqual({ entered: 0, left: 0, applied: false });
    } finally {
      deleter.release();
    }
    expect(await members(seg.id)).toEqual([]);
    expect(await segmentEvents(seg.id)).toEqual([]);
  });

  it('a segment whose field was deleted answers 400 with the reason and does not stop the other segments', async () => {
    await owner.client.post('/v1/fields', { items: [{ name: 'tier', type: 'string' }] });
    const p = await addPerson({ tier: 'gold' });
    const broken = await createSegment('Gold', [{ type: 'field', field: 'tier', operator: 'equals', value: 'gold' }]);
    const referring = await createSegment('In gold', [{ type: 'segment', operator: 'in', segmentId: broken.id }]);
    const tagged = await createSegment('Keep going', [{ type: 'tag', operator: 'has', tag: 'keep-going' }]);
    await waitForMembers(broken.id, [p.id]);
    expect((await owner.client.request('DELETE', '/v1/fields/tier')).status).toBe(204);

    const unknown = { status: 400, message: 'Unknown field: tier.' };
    for (const res of [
      await owner.client.get(`/v1/segments/${broken.id}/preview`),
      await owner.client.get(`/v1/segments/${broken.id}/people`),
      await owner.client.get(`/v1/segments/${referring.id}/preview`),
      await owner.client.post(`/v1/segments/${broken.id}/explain`, { personId: p.id }),
      await owner.client.post('/v1/segments/preview', { conditions: [{ type: 'segment', operator: 'notIn', segmentId: broken.id }] }),
      await owner.client.post('/v1/segments/', { name: 'Refers to gold', conditions: [{ type: 'segment', operator: 'in', segmentId: broken.id }] }),
      await owner.client.post('/v1/tags/bulk', { tag: 'gold', segmentId: broken.id }),
    ]) {
      expect({ status: res.status, message: res.body.message }).toEqual(unknown);
    }
    // Editing it: an explanation of the new conditions works, and saving them mends the segment.
    const fixed = [{ type: 'tag', operator: 'has', tag: 'keep-going' }];
    expect((await owner.client.post(`/v1/segments/${broken.id}/explain`, { personId: p.id, conditions: fixed })).body.matches).toBe(false);

    // Membership of the account goes on: a tag added now is followed, the broken segment keeps its members.
    await owner.client.post('/v1/tags/', { tag: 'keep-going', id: p.id });
    await waitForMembers(tagged.id, [p.id]);
    expect(await members(broken.id)).toEqual([p.id]);
    expect((await owner.client.patch(`/v1/segments/${broken.id}`, { id: broken.id, name: 'Gold', conditions: fixed })).status).toBe(200);
    expect((await owner.client.get(`/v1/segments/${referring.id}/preview`)).body).toEqual({ totalCount: 1 });
  });

  it('deleting a field waits for the refreshes under way, so none judges people by the field it loaded', async () => {
    await owner.client.post('/v1/fields', { items: [{ name: 'level', type: 'string' }] });
    // A refresh under way holds the account's refreshes shared until it commits, as runDirtyRefresh does.
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const refresh = withAccount(ctx.services.db, accountId, async (db) => {
      expect(await refreshesFree(db, accountId)).toBe(true);
      started();
      await finished;
    });
    await holding;
    let deleted = false;
    const deletion = owner.client.request('DELETE', '/v1/fields/level').then((res) => {
      deleted = true;
      return res.status;
    });
    // The deletion has tried for the hold and is waiting for it (between its tries, its transaction stays open).
    await until(
      async () =>
        (await ctx.services.pool.query(`select 1 from pg_stat_activity where datname = current_database() and state = 'idle in transaction' and query like '%pg_try_advisory_xact_lock(hashtextextended%'`)).rows.length > 0,
      { timeout: 10_000, message: "the field's deletion waiting for the refreshes" },
    );
    expect(deleted).toBe(false);
    finish();
    await refresh;
    expect(await deletion).toBe(204);
    // And while a deletion holds them, a refresh that starts finds them held (it leaves the marks for later).
    const holdingNow = await ctx.services.db.transaction().execute(async (trx) => {
      expect(await holdSegmentRefreshesUntilCommit(trx, accountId, 0)).toBe(true);
      return withAccount(ctx.services.db, accountId, (db) => refreshesFree(db, accountId));
    });
    expect(holdingNow).toBe(false);

    // Refreshes held longer than the delete waits (an import merging): 409, and the field stays.
    await owner.client.post('/v1/fields', { items: [{ name: 'level', type: 'string' }] });
    const release = await holdSegmentRefreshes(ctx.services.pool, accountId);
    try {
      const busy = await owner.client.request('DELETE', '/v1/fields/level');
      expect({ status: busy.status, message: busy.body.message }).toEqual({ status: 409, message: fieldDeleteBusy });
    } finally {
      await release();
    }
    expect((await owner.client.get('/v1/fields')).body.items.map((f: { name: string }) => f.name)).toContain('level');
    expect((await owner.client.request('DELETE', '/v1/fields/level')).status).toBe(204);
  });

  it('a bulk change of more than 10,000 people marks the whole account and rebuilds every segment', async () => {
    const seg = await createSegment('Imported', [{ type: 'tag', operator: 'has', tag: 'imported' }]);
    await waitForFirstBuild(seg.id);
    await sql`insert into people (account_id, email, tags) select ${accountId}, 'bulk' || g || '@example.com', array['imported'] from generate_series(1, 10001) g`.execute(ctx.services.db);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from segment_dirty_accounts where account_id = ${accountId}`.execute(ctx.services.db);
    expect(rows[0]!.n + (await members(seg.id)).length).toBeGreaterThan(0);
    await until(async () => (await members(seg.id)).length >= 10001, { timeout: 20_000, message: 'the bulk insert reflected in the segment' });
    expect((await members(seg.id)).length).toBe(10001);
    const entered = await sql<{ n: number }>`select count(*)::int as n from events where account_id = ${accountId} and type = 'segment'
      and name = 'entered' and (data ->> 'segmentId')::bigint = ${seg.id}`.execute(ctx.services.db);
    expect(entered.rows[0]!.n).toBe(10001);
    expect(await memberCount(seg.id)).toBe(10001);
  });

  it('runs bulk actions on a segment: tag everyone in it', async () => {
    const a = await addPerson({ city: 'Lyon' });
    const b = await addPerson({ city: 'Lyon' });
    const seg = await createSegment('Lyon', [{ type: 'field', field: 'city', operator: 'equals', value: 'Lyon' }]);
    const started = await owner.client.post('/v1/tags/bulk', { tag: 'lyonnais', segmentId: seg.id });
    expect(started.status).toBe(202);
    const id = started.body.bulkActionId;
    await until(async () => (await owner.client.get(`/v1/bulk-actions/${id}`)).body.status === 'done', { timeout: 10_000, message: `bulk action ${id} done` });
    const tagged = await owner.client.post('/v1/segments/preview', { conditions: [{ type: 'tag', operator: 'has', tag: 'lyonnais' }] });
    expect(tagged.body.totalCount).toBe(2);
    expect((await owner.client.get(`/v1/people/${a.id}`)).body.users[0].tags).toContain('lyonnais');
    expect((await owner.client.get(`/v1/people/${b.id}`)).body.users[0].tags).toContain('lyonnais');
    expect((await owner.client.post('/v1/tags/bulk', { tag: 'x', segmentId: 987_654 })).status).toBe(404);
  });

  it('re-checks a person whose tags alone changed only against the segments that read one of those tags', async () => {
    const berlin = await createSegment('Berliners (tag marks)', [{ type: 'field', field: 'city', operator: 'equals', value: 'Berlin' }]);
    const gold = await createSegment('Gold (tag marks)', [{ type: 'tag', operator: 'has', tag: 'gold-mark' }]);
    await waitForFirstBuild(berlin.id);
    await waitForFirstBuild(gold.id);
    const person = await addPerson({ city: 'Berlin' });
    await waitForMembers(berlin.id, [...(await members(berlin.id)).filter((id) => id !== person.id), person.id]);
    const berliners = await members(berlin.id);
    // The membership is made stale behind the refresh's back: only a re-check against Berliners brings it back.
    await sql`delete from segment_members where account_id = ${accountId} and segment_id = ${berlin.id} and person_id = ${person.id}`.execute(ctx.services.db);

    const release = await holdSegmentRefreshes(ctx.services.pool, accountId);
    try {
      await owner.client.post('/v1/tags/', { tag: 'gold-mark', id: person.id });
      await sql`update people set tags = array_remove(tags, 'nothing-here') where account_id = ${accountId} and id = ${person.id}`.execute(ctx.services.db);
      const { rows } = await sql<{ tags: string[] | null }>`select tags from segment_dirty_people where account_id = ${accountId} and person_id = ${person.id} order by marked_at`.execute(ctx.services.db);
      // Tag added: that tag. An update that changed no tag, with no segment reading updatedAt, marks no one.
      expect(rows.map((r) => r.tags)).toEqual([['gold-mark']]);
    } finally {
      await release();
    }
    await waitForMembers(gold.id, [person.id]);
    await runDirtyRefresh(ctx.services, accountId);
    expect(await members(berlin.id)).toEqual(berliners.filter((id) => id !== person.id));

    // Any other change marks the person for every segment; a tag no segment names, for none.
    const release2 = await holdSegmentRefreshes(ctx.services.pool, accountId);
    try {
      await sql`update people set first_name = 'Changed', tags = array_append(tags, 'another') where account_id = ${accountId} and id = ${person.id}`.execute(ctx.services.db);
      const { rows } = await sql<{ tags: string[] | null }>`select tags from segment_dirty_people where account_id = ${accountId} and person_id = ${person.id}`.execute(ctx.services.db);
      expect(rows.map((r) => r.tags)).toEqual([null]);
    } finally {
      await release2();
    }
    await waitForMembers(berlin.id, berliners);
  });

  it('marks people changed in any way for an update of any column but tags and updated_at', async () => {
    const { rows } = await sql<{ name: string; generated: string; identity: string }>`
      select column_name as name, is_generated as generated, is_identity as identity from information_schema.columns
      where table_schema = 'public' and table_name = 'people'`.execute(ctx.services.db);
    const settable = rows.filter((r) => r.generated === 'NEVER' && r.identity === 'NO' && r.name !== 'tags' && r.name !== 'updated_at').map((r) => r.name);
    expect(settable.sort()).toEqual([...peopleColumnsMarkedAny].sort());
    // The note of the column trigger is taken by the marking trigger that fires next (name order).
    const { rows: triggers } = await sql<{ name: string }>`
      select tgname as name from pg_trigger where tgrelid = 'people'::regclass and not tgisinternal and (tgtype & 16) <> 0 order by tgname collate "C"`.execute(ctx.services.db);
    const names = triggers.map((t) => t.name);
    expect(names[names.indexOf('people_updated_segment_columns') + 1]).toBe('people_updated_segments');
  });

  it('marks a tag change for the segments that read updatedAt, and only the tags that changed', async () => {
    const recent = await createSegment('Updated lately (tag marks)', [{ type: 'field', field: 'updatedAt', operator: 'withinLast', value: 3 }]);
    await waitForFirstBuild(recent.id);
    const person = await addPerson({ city: 'Oslo' });
    await sql`update people set tags = array['keep-a', 'keep-b'] where account_id = ${accountId} and id = ${person.id}`.execute(ctx.services.db);
    const release = await holdSegmentRefreshes(ctx.services.pool, accountId);
    try {
      await sql`delete from segment_dirty_people where account_id = ${accountId} and person_id = ${person.id}`.execute(ctx.services.db);
      await sql`update people set tags = array['keep-b', 'new-c'] where account_id = ${accountId} and id = ${person.id}`.execute(ctx.services.db);
      await sql`update people set updated_at = now() where account_id = ${accountId} and id = ${person.id}`.execute(ctx.services.db);
      const { rows } = await sql<{ tags: string[] | null }>`select tags from segment_dirty_people where account_id = ${accountId} and person_id = ${person.id} order by marked_at`.execute(ctx.services.db);
      expect(rows.map((r) => (r.tags ? [...r.tags].sort() : r.tags))).toEqual([['keep-a', 'new-c'], []]);
    } finally {
      await release();
    }
  });
});
