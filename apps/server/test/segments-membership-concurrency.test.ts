import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import {
  holdSegmentRefreshes,
  holdSegmentRefreshesUntilCommit,
  refreshesFree,
} from '../src/db/refresh-hold.ts';
import { applyMembership } from '../src/features/segments/membership.queries.ts';
import { runDirtyRefresh, runSegmentRefresh } from '../src/features/segments/segments.jobs.ts';
import { fieldDeleteBusy } from '../src/features/fields/fields.service.ts';
import { queueDrained } from './job-queue.ts';
import { waitingOnALock } from './lock-waits.ts';
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

// A membership refresh meeting other work: run again after a crash, a rebuild under way, an import holding the
// account's refreshes, conditions changed or a segment or field deleted meanwhile (segments-membership.test.ts
// follows the changes themselves).
useMembershipContext();

describe('segment membership', () => {
  it('repeats nothing when a refresh runs again (a retry after a crash)', async () => {
    const p = await addPerson({ city: 'Rome' });
    const seg = await createSegment('Romans', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Rome' },
    ]);
    await waitForMembers(seg.id, [p.id]);
    await owner.client.patch(`/v1/people/${p.id}`, { city: 'Milan' });
    await waitForMembers(seg.id, []);
    const events = await segmentEvents(seg.id);
    // Mark the person again by hand and run both refreshes twice: nothing changes, no event is added.
    await sql`insert into segment_dirty_people (account_id, person_id) values (${accountId}, ${p.id})`.execute(
      ctx.services.db,
    );
    await runDirtyRefresh(ctx.services, accountId);
    await runDirtyRefresh(ctx.services, accountId);
    await runSegmentRefresh(ctx.services, accountId, seg.id);
    await runSegmentRefresh(ctx.services, accountId, seg.id);
    expect(await segmentEvents(seg.id)).toEqual(events);
    expect(await members(seg.id)).toEqual([]);
  });

  it('a change made while a segment is rebuilt reaches the other segments at once, and that one after the rebuild', async () => {
    const p = await addPerson({ city: 'Graz' });
    const busy = await createSegment('Graz busy', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Linz' },
    ]);
    const free = await createSegment('Graz free', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Linz' },
      { type: 'tag', operator: 'hasNot', tag: 'x' },
    ]);
    await waitForFirstBuild(busy.id);
    await waitForFirstBuild(free.id);
    // Hold the busy segment's membership lock, as a long rebuild would.
    const rebuild = await ctx.services.pool.connect();
    try {
      await rebuild.query(`select pg_advisory_lock(hashtextextended('segment-membership', $1::bigint))`, [
        busy.id,
      ]);
      await owner.client.patch(`/v1/people/${p.id}`, { city: 'Linz' });
      expect(await waitForMembers(free.id, [p.id])).toBeLessThan(10);
      expect(await members(busy.id)).toEqual([]);
    } finally {
      await rebuild.query(`select pg_advisory_unlock(hashtextextended('segment-membership', $1::bigint))`, [
        busy.id,
      ]);
      rebuild.release();
    }
    expect(await waitForMembers(busy.id, [p.id])).toBeLessThan(10);
    expect(await segmentEvents(busy.id)).toEqual([{ personId: p.id, name: 'entered' }]);
    expect(await segmentEvents(free.id)).toEqual([{ personId: p.id, name: 'entered' }]);
  });

  it("holds an account's refreshes while an import merges, and follows the changes once it is done", async () => {
    const p = await addPerson({ city: 'Porto' });
    const seg = await createSegment('Braga', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Braga' },
    ]);
    await waitForFirstBuild(seg.id);
    const release = await holdSegmentRefreshes(ctx.services.pool, accountId);
    let later = 0;
    try {
      await owner.client.patch(`/v1/people/${p.id}`, { city: 'Braga' });
      // A segment saved meanwhile is built after the import too.
      const saved = await createSegment('Braga too', [
        { type: 'field', field: 'city', operator: 'equals', value: 'Braga' },
      ]);
      // The new segment's build ran and, finding the refreshes held, marked the account for later; no job is left
      // (the poller queues nothing for an account whose refreshes are held).
      await until(
        async () =>
          (
            await sql`select 1 from segment_dirty_accounts where account_id = ${accountId}`.execute(
              ctx.services.db,
            )
          ).rows.length > 0,
        { timeout: 15_000, message: 'the account marked for a rebuild' },
      );
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
    const seg = await createSegment('Nice', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Nice' },
    ]);
    await waitForMembers(seg.id, [p.id]);
    const stale = await withAccount(ctx.services.db, accountId, (db) =>
      applyMembership(db, accountId, { id: seg.id, version: 0 }, sql`false`, null, true),
    );
    expect(stale).toEqual({ entered: 0, left: 0, applied: false });
    expect(await members(seg.id)).toEqual([p.id]);
    expect(await segmentEvents(seg.id)).toEqual([]);
    expect(await memberCount(seg.id)).toBe(1);
  });

  it('writes nothing, and does not fail, for a segment deleted while its refresh runs', async () => {
    const p = await addPerson({ city: 'Cannes' });
    const seg = await createSegment('Cannes', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Antibes' },
    ]);
    await waitForFirstBuild(seg.id);
    const { version } = await ctx.services.db
      .selectFrom('segments')
      .select('version')
      .where('id', '=', seg.id)
      .executeTakeFirstOrThrow();
    // Another transaction deletes the segment and commits only after the refresh has started.
    const deleter = await ctx.services.pool.connect();
    try {
      await deleter.query('begin');
      await deleter.query('delete from segments where id = $1', [seg.id]);
      const refresh = withAccount(ctx.services.db, accountId, (db) =>
        applyMembership(db, accountId, { id: seg.id, version }, sql`true`, [p.id], true),
      );
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
    const broken = await createSegment('Gold', [
      { type: 'field', field: 'tier', operator: 'equals', value: 'gold' },
    ]);
    const referring = await createSegment('In gold', [
      { type: 'segment', operator: 'in', segmentId: broken.id },
    ]);
    const tagged = await createSegment('Keep going', [{ type: 'tag', operator: 'has', tag: 'keep-going' }]);
    await waitForMembers(broken.id, [p.id]);
    expect((await owner.client.request('DELETE', '/v1/fields/tier')).status).toBe(204);

    const unknown = { status: 400, message: 'Unknown field: tier.' };
    for (const res of [
      await owner.client.get(`/v1/segments/${broken.id}/preview`),
      await owner.client.get(`/v1/segments/${broken.id}/people`),
      await owner.client.get(`/v1/segments/${referring.id}/preview`),
      await owner.client.post(`/v1/segments/${broken.id}/explain`, { personId: p.id }),
      await owner.client.post('/v1/segments/preview', {
        conditions: [{ type: 'segment', operator: 'notIn', segmentId: broken.id }],
      }),
      await owner.client.post('/v1/segments/', {
        name: 'Refers to gold',
        conditions: [{ type: 'segment', operator: 'in', segmentId: broken.id }],
      }),
      await owner.client.post('/v1/tags/bulk', { tag: 'gold', segmentId: broken.id }),
    ]) {
      expect({ status: res.status, message: res.body.message }).toEqual(unknown);
    }
    // Editing it: an explanation of the new conditions works, and saving them mends the segment.
    const fixed = [{ type: 'tag', operator: 'has', tag: 'keep-going' }];
    expect(
      (await owner.client.post(`/v1/segments/${broken.id}/explain`, { personId: p.id, conditions: fixed }))
        .body.matches,
    ).toBe(false);

    // Membership of the account goes on: a tag added now is followed, the broken segment keeps its members.
    await owner.client.post('/v1/tags/', { tag: 'keep-going', id: p.id });
    await waitForMembers(tagged.id, [p.id]);
    expect(await members(broken.id)).toEqual([p.id]);
    expect(
      (
        await owner.client.patch(`/v1/segments/${broken.id}`, {
          id: broken.id,
          name: 'Gold',
          conditions: fixed,
        })
      ).status,
    ).toBe(200);
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
        (
          await ctx.services.pool.query(
            `select 1 from pg_stat_activity where datname = current_database() and state = 'idle in transaction' and query like '%pg_try_advisory_xact_lock(hashtextextended%'`,
          )
        ).rows.length > 0,
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
      expect({ status: busy.status, message: busy.body.message }).toEqual({
        status: 409,
        message: fieldDeleteBusy,
      });
    } finally {
      await release();
    }
    expect((await owner.client.get('/v1/fields')).body.items.map((f: { name: string }) => f.name)).toContain(
      'level',
    );
    expect((await owner.client.request('DELETE', '/v1/fields/level')).status).toBe(204);
  });
});
