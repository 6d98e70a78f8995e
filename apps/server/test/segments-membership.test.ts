import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { holdSegmentRefreshes } from '../src/db/refresh-hold.ts';
import { runDirtyRefresh } from '../src/features/segments/segments.jobs.ts';
import { peopleColumnsMarkedAnyNow as peopleColumnsMarkedAny } from '../src/db/migrations/0053-double-opt-in.ts';
import {
  accountId,
  addPerson,
  createSegment,
  ctx,
  memberCount,
  members,
  owner,
  segmentEvents,
  useMembershipContext,
  waitForFirstBuild,
  waitForMembers,
} from './segments-membership-fixtures.ts';
import { until } from './until.ts';

// Membership following field, tag, event and bulk changes, and the marks that say whom a refresh re-checks (a refresh
// meeting other work is segments-membership-concurrency.test.ts).
useMembershipContext();

describe('segment membership', () => {
  it('builds a new segment without entry events, then follows field, tag and event changes within seconds', async () => {
    const berliner = await addPerson({ city: 'Berlin' });
    const other = await addPerson({ city: 'Paris' });
    const seg = await createSegment('Berliners', [
      { type: 'field', field: 'city', operator: 'equals', value: 'berlin' },
    ]);
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
    const buyers = await createSegment('Buyers', [
      {
        type: 'event',
        name: 'Order completed',
        count: { operator: 'atLeast', value: 1 },
        window: { type: 'inTheLast', days: 7 },
        properties: [],
      },
    ]);
    await waitForMembers(tagged.id, []);
    await owner.client.post('/v1/tags/', { tag: 'vip', id: other.id });
    await waitForMembers(tagged.id, [other.id]);
    await owner.client.post(
      '/v1/ingest',
      { type: 'track', email: berliner.email, name: 'Order completed' },
      { headers: { 'x-write-key': owner.account.writeKey } },
    );
    await waitForMembers(buyers.id, [berliner.id]);

    // The person page lists the segments a person is in.
    const mine = await owner.client.get(`/v1/people/${other.id}/segments`);
    expect(mine.body.segments.map((s: { name: string }) => s.name)).toEqual(
      expect.arrayContaining(['Berliners', 'Tagged']),
    );
    expect(
      (await owner.client.get('/v1/segments')).body.segments.find((s: { id: number }) => s.id === tagged.id)
        .memberCount,
    ).toBe(1);
  });

  it('rebuilds members when the conditions change and drops them when a person is deleted', async () => {
    const a = await addPerson({ city: 'Oslo' });
    const b = await addPerson({ city: 'Bergen' });
    const seg = await createSegment('Norway', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Oslo' },
    ]);
    await waitForMembers(seg.id, [a.id]);
    await owner.client.patch(`/v1/segments/${seg.id}`, {
      id: seg.id,
      name: 'Norway',
      conditions: [{ type: 'field', field: 'city', operator: 'equals', value: 'Bergen' }],
    });
    await waitForMembers(seg.id, [b.id]);
    expect(await segmentEvents(seg.id)).toEqual(
      expect.arrayContaining([
        { personId: b.id, name: 'entered' },
        { personId: a.id, name: 'left' },
      ]),
    );
    await owner.client.request('DELETE', `/v1/people?force=true&id=${b.id}`);
    expect(await members(seg.id)).toEqual([]);
    expect(await memberCount(seg.id)).toBe(0);
  });

  it('archiving a segment in bulk takes its people out of every segment, with left events; restoring brings them back', async () => {
    const a = await addPerson({ city: 'Turin' });
    const b = await addPerson({ city: 'Turin' });
    const seg = await createSegment('Turin', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Turin' },
    ]);
    const tagged = await createSegment('Turin tagged', [{ type: 'tag', operator: 'has', tag: 'torino' }]);
    await waitForFirstBuild(tagged.id);
    await owner.client.post('/v1/tags/', { tag: 'torino', id: a.id });
    await waitForMembers(seg.id, [a.id, b.id]);
    await waitForMembers(tagged.id, [a.id]);
    expect(
      (await owner.client.request('DELETE', '/v1/people/bulk', { body: { segmentId: seg.id } })).status,
    ).toBe(202);
    await waitForMembers(seg.id, []);
    await waitForMembers(tagged.id, []);
    expect(await memberCount(seg.id)).toBe(0);
    expect(await segmentEvents(seg.id)).toEqual(
      expect.arrayContaining([
        { personId: a.id, name: 'left' },
        { personId: b.id, name: 'left' },
      ]),
    );
    expect(await segmentEvents(tagged.id)).toEqual([
      { personId: a.id, name: 'entered' },
      { personId: a.id, name: 'left' },
    ]);
    expect(
      (await owner.client.get('/v1/segments/1/people')).body.users.map((u: { id: number }) => u.id),
    ).toEqual(expect.arrayContaining([a.id, b.id]));
    expect((await owner.client.post('/v1/people/restore', { people: [a.id] })).status).toBe(202);
    await waitForMembers(seg.id, [a.id]);
    await waitForMembers(tagged.id, [a.id]);
    expect(await memberCount(tagged.id)).toBe(1);
  });

  it('a bulk change of more than 10,000 people marks the whole account and rebuilds every segment', async () => {
    const seg = await createSegment('Imported', [{ type: 'tag', operator: 'has', tag: 'imported' }]);
    await waitForFirstBuild(seg.id);
    await sql`insert into people (account_id, email, tags) select ${accountId}, 'bulk' || g || '@example.com', array['imported'] from generate_series(1, 10001) g`.execute(
      ctx.services.db,
    );
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from segment_dirty_accounts where account_id = ${accountId}`.execute(
      ctx.services.db,
    );
    expect(rows[0]!.n + (await members(seg.id)).length).toBeGreaterThan(0);
    await until(async () => (await members(seg.id)).length >= 10001, {
      timeout: 20_000,
      message: 'the bulk insert reflected in the segment',
    });
    expect((await members(seg.id)).length).toBe(10001);
    const entered = (await segmentEvents(seg.id)).filter((e) => e.name === 'entered');
    expect(entered).toHaveLength(10001);
    expect(await memberCount(seg.id)).toBe(10001);
  });

  it('runs bulk actions on a segment: tag everyone in it', async () => {
    const a = await addPerson({ city: 'Lyon' });
    const b = await addPerson({ city: 'Lyon' });
    const seg = await createSegment('Lyon', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Lyon' },
    ]);
    const started = await owner.client.post('/v1/tags/bulk', { tag: 'lyonnais', segmentId: seg.id });
    expect(started.status).toBe(202);
    const id = started.body.bulkActionId;
    await until(async () => (await owner.client.get(`/v1/bulk-actions/${id}`)).body.status === 'done', {
      timeout: 10_000,
      message: `bulk action ${id} done`,
    });
    const tagged = await owner.client.post('/v1/segments/preview', {
      conditions: [{ type: 'tag', operator: 'has', tag: 'lyonnais' }],
    });
    expect(tagged.body.totalCount).toBe(2);
    expect((await owner.client.get(`/v1/people/${a.id}`)).body.users[0].tags).toContain('lyonnais');
    expect((await owner.client.get(`/v1/people/${b.id}`)).body.users[0].tags).toContain('lyonnais');
    expect((await owner.client.post('/v1/tags/bulk', { tag: 'x', segmentId: 987_654 })).status).toBe(404);
  });

  it('re-checks a person whose tags alone changed only against the segments that read one of those tags', async () => {
    const berlin = await createSegment('Berliners (tag marks)', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Berlin' },
    ]);
    const gold = await createSegment('Gold (tag marks)', [
      { type: 'tag', operator: 'has', tag: 'gold-mark' },
    ]);
    await waitForFirstBuild(berlin.id);
    await waitForFirstBuild(gold.id);
    const person = await addPerson({ city: 'Berlin' });
    await waitForMembers(berlin.id, [
      ...(await members(berlin.id)).filter((id) => id !== person.id),
      person.id,
    ]);
    const berliners = await members(berlin.id);
    // The membership is made stale behind the refresh's back: only a re-check against Berliners brings it back.
    await sql`delete from segment_members where account_id = ${accountId} and segment_id = ${berlin.id} and person_id = ${person.id}`.execute(
      ctx.services.db,
    );

    const release = await holdSegmentRefreshes(ctx.services.pool, accountId);
    try {
      await owner.client.post('/v1/tags/', { tag: 'gold-mark', id: person.id });
      await sql`update people set tags = array_remove(tags, 'nothing-here') where account_id = ${accountId} and id = ${person.id}`.execute(
        ctx.services.db,
      );
      const { rows } = await sql<{
        tags: string[] | null;
      }>`select tags from segment_dirty_people where account_id = ${accountId} and person_id = ${person.id} order by marked_at`.execute(
        ctx.services.db,
      );
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
      await sql`update people set first_name = 'Changed', tags = array_append(tags, 'another') where account_id = ${accountId} and id = ${person.id}`.execute(
        ctx.services.db,
      );
      const { rows } = await sql<{
        tags: string[] | null;
      }>`select tags from segment_dirty_people where account_id = ${accountId} and person_id = ${person.id}`.execute(
        ctx.services.db,
      );
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
    const settable = rows
      .filter(
        (r) => r.generated === 'NEVER' && r.identity === 'NO' && r.name !== 'tags' && r.name !== 'updated_at',
      )
      .map((r) => r.name);
    expect(settable.sort()).toEqual([...peopleColumnsMarkedAny].sort());
    // The note of the column trigger is taken by the marking trigger that fires next (name order).
    const { rows: triggers } = await sql<{ name: string }>`
      select tgname as name from pg_trigger where tgrelid = 'people'::regclass and not tgisinternal and (tgtype & 16) <> 0 order by tgname collate "C"`.execute(
      ctx.services.db,
    );
    const names = triggers.map((t) => t.name);
    expect(names[names.indexOf('people_updated_segment_columns') + 1]).toBe('people_updated_segments');
  });

  it('marks a tag change for the segments that read updatedAt, and only the tags that changed', async () => {
    const recent = await createSegment('Updated lately (tag marks)', [
      { type: 'field', field: 'updatedAt', operator: 'withinLast', value: 3 },
    ]);
    await waitForFirstBuild(recent.id);
    const person = await addPerson({ city: 'Oslo' });
    await sql`update people set tags = array['keep-a', 'keep-b'] where account_id = ${accountId} and id = ${person.id}`.execute(
      ctx.services.db,
    );
    const release = await holdSegmentRefreshes(ctx.services.pool, accountId);
    try {
      await sql`delete from segment_dirty_people where account_id = ${accountId} and person_id = ${person.id}`.execute(
        ctx.services.db,
      );
      await sql`update people set tags = array['keep-b', 'new-c'] where account_id = ${accountId} and id = ${person.id}`.execute(
        ctx.services.db,
      );
      await sql`update people set updated_at = now() where account_id = ${accountId} and id = ${person.id}`.execute(
        ctx.services.db,
      );
      const { rows } = await sql<{
        tags: string[] | null;
      }>`select tags from segment_dirty_people where account_id = ${accountId} and person_id = ${person.id} order by marked_at`.execute(
        ctx.services.db,
      );
      expect(rows.map((r) => (r.tags ? [...r.tags].sort() : r.tags))).toEqual([['keep-a', 'new-c'], []]);
    } finally {
      await release();
    }
  });
});
