import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  heldRebuildRetryMs,
  rebuildLockWaitMs,
  runSegmentRefresh,
  runSegmentRefreshJob,
} from '../src/features/segments/segments.jobs.ts';
import {
  accountId,
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

// A rebuild whose difference is larger than a part (docs/segments.md, "A big rebuild in parts"): applied in parts
// of `size` people, each committed, while the rebuild holds the segment's membership lock. The worker runs beside
// it, so the marks of the people written here are followed too; whoever applies an entry records it once.
useMembershipContext();

/** `n` people of the account in `city`, written in one statement (as an import would), newest last. */
async function addPeople(n: number, city: string, prefix: string): Promise<number[]> {
  const { rows } = await sql<{ id: string }>`
    insert into people (account_id, email, fields)
    select ${accountId}, ${prefix} || '-' || i || '@parts.example.com', jsonb_build_object('city', ${city}::text)
    from generate_series(1, ${n}) i returning id`.execute(ctx.services.db);
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

const inCity = (city: string) => [
  { type: 'field' as const, field: 'city', operator: 'equals' as const, value: city },
];

/** Whether another session could take the segment's membership lock now (false while a rebuild holds it). */
async function lockFree(segmentId: number): Promise<boolean> {
  const client = await ctx.services.pool.connect();
  try {
    const { rows } = await client.query<{ free: boolean }>(
      `select pg_try_advisory_lock(hashtextextended('segment-membership', $1::bigint)) as free`,
      [segmentId],
    );
    if (rows[0]!.free)
      await client.query(`select pg_advisory_unlock(hashtextextended('segment-membership', $1::bigint))`, [
        segmentId,
      ]);
    return rows[0]!.free;
  } finally {
    client.release();
  }
}

describe('a segment rebuilt in parts', () => {
  it('adds and removes everyone, a part at a time, each committed, with one event each and the right count', async () => {
    const seg = await createSegment('Oslo', inCity('Oslo'));
    await waitForFirstBuild(seg.id);
    const leaving = await addPeople(4, 'Oslo', 'leaving');
    await waitForMembers(seg.id, leaving);
    const entering = await addPeople(25, 'Oslo', 'entering');
    await sql`update people set fields = fields || '{"city": "Bergen"}' where account_id = ${accountId} and id = any(${leaving}::bigint[])`.execute(
      ctx.services.db,
    );
    const seen: { part: number; members: number; lockFree: boolean }[] = [];
    await runSegmentRefresh(ctx.services, accountId, seg.id, {
      size: 10,
      afterPart: async (part) => {
        seen.push({ part, members: (await members(seg.id)).length, lockFree: await lockFree(seg.id) });
      },
    });
    // Three parts of at most ten entries; each part's members were committed and seen from another session while
    // the rebuild still held the lock. (The worker may have applied some of the same marks first.)
    expect(seen.map((s) => s.part)).toEqual([0, 1, 2]);
    expect(seen.every((s) => !s.lockFree)).toBe(true);
    expect(seen[0]!.members).toBeGreaterThanOrEqual(10);
    expect(await members(seg.id)).toEqual(entering);
    expect(await lockFree(seg.id)).toBe(true);
    const events = await segmentEvents(seg.id);
    for (const id of entering)
      expect(events.filter((e) => e.personId === id)).toEqual([{ personId: id, name: 'entered' }]);
    for (const id of leaving)
      expect(events.filter((e) => e.personId === id)).toEqual([
        { personId: id, name: 'entered' },
        { personId: id, name: 'left' },
      ]);
    expect(await memberCount(seg.id)).toBe(25);
  });

  it('passes over a person deleted before their part, and stops when the conditions change between parts', async () => {
    const seg = await createSegment('Turku', inCity('Turku'));
    await waitForFirstBuild(seg.id);
    const entering = await addPeople(30, 'Turku', 'turku');
    const gone = entering.at(-1)!;
    await runSegmentRefresh(ctx.services, accountId, seg.id, {
      size: 10,
      afterPart: async (part) => {
        if (part === 0)
          await sql`delete from people where account_id = ${accountId} and id = ${gone}`.execute(
            ctx.services.db,
          );
      },
    });
    expect(await members(seg.id)).toEqual(entering.slice(0, -1));
    expect((await segmentEvents(seg.id)).filter((e) => e.personId === gone)).toEqual([]);
    expect(await memberCount(seg.id)).toBe(29);

    // Edited after the first part: the rest of the old difference is not written; the new conditions' rebuild is.
    const other = await createSegment('Tampere', inCity('Tampere'));
    await waitForFirstBuild(other.id);
    const tampere = await addPeople(25, 'Tampere', 'tampere');
    let written = 0;
    const applied: number[] = [];
    await runSegmentRefresh(ctx.services, accountId, other.id, {
      size: 10,
      afterPart: async (part) => {
        applied.push(part);
        if (part !== 0) return;
        written = (await members(other.id)).length;
        const res = await owner.client.patch(`/v1/segments/${other.id}`, {
          id: other.id,
          name: 'Tampere',
          conditions: inCity('Nowhere'),
        });
        expect(res.status).toBe(200);
      },
    });
    expect(written).toBeGreaterThanOrEqual(10);
    expect(applied).toEqual([0]);
    await until(async () => (await members(other.id)).length === 0 && (await memberCount(other.id)) === 0, {
      timeout: 15_000,
      message: 'the edited segment rebuilt empty',
    });
    expect(tampere).toHaveLength(25);
  });

  it('a rebuild asked for while another holds the segment queues itself for later instead of waiting', async () => {
    const seg = await createSegment('Lahti', inCity('Lahti'));
    await waitForFirstBuild(seg.id);
    // Another rebuild of the segment (a session of its own) holds the lock throughout.
    const holder = await ctx.services.pool.connect();
    try {
      await holder.query(`select pg_advisory_lock(hashtextextended('segment-membership', $1::bigint))`, [
        seg.id,
      ]);
      const lahti = await addPeople(5, 'Lahti', 'lahti');
      const started = Date.now();
      await runSegmentRefreshJob(ctx.services, { accountId, segmentId: seg.id });
      // Waited for the lock a while, then gave up without an error (waiting on in PostgreSQL ran into the
      // statement time-out after 30 s and failed the job).
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(rebuildLockWaitMs - 300);
      expect(waited).toBeLessThan(rebuildLockWaitMs + 10_000);
      expect(await members(seg.id)).toEqual([]);
      // The same rebuild is queued again, for later, and the worker keeps putting it off while the lock is held.
      const { rows } = await sql<{ runsIn: number }>`
        select extract(epoch from run_at - now())::float8 as "runsIn" from graphile_worker._private_jobs
        where key = ${`refresh-segment:${accountId}:${seg.id}`}`.execute(ctx.services.db);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.runsIn).toBeGreaterThan(0);
      expect(rows[0]!.runsIn).toBeLessThanOrEqual(heldRebuildRetryMs / 1000);
      await holder.query(`select pg_advisory_unlock(hashtextextended('segment-membership', $1::bigint))`, [
        seg.id,
      ]);
      await waitForMembers(seg.id, lahti);
      // Once the lock is free, the queued rebuild runs and leaves the queue, none of its tries failed.
      await until(
        async () => {
          const jobs = await sql<{ lastError: string | null }>`
            select j.last_error as "lastError" from graphile_worker._private_jobs j
            join graphile_worker._private_tasks t on t.id = j.task_id
            where j.key = ${`refresh-segment:${accountId}:${seg.id}`}
              or (t.identifier = 'refresh-segment' and j.last_error is not null)`.execute(ctx.services.db);
          return jobs.rows.length === 0;
        },
        { timeout: 20_000, message: 'the queued rebuild ran, and no rebuild failed' },
      );
      expect(await memberCount(seg.id)).toBe(5);
    } finally {
      holder.release();
    }
  });
});
