/**
 * Segment marks (the people a refresh re-checks): how refreshes take them without waiting for each other, the one
 * plan of the take whatever the statistics say, and how the poller finds the accounts that have them.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeMarksBody } from '../src/db/migrations/0043-segment-marks-take-plan.ts';
import { takeMarksByAddressSettings as takeMarksSettings } from '../src/db/migrations/0062-segment-marks-take-by-address.ts';
import { withAccount } from '../src/db/tenancy.ts';
import { holdSegmentRefreshes } from '../src/db/refresh-hold.ts';
import {
  accountsWithDirtyMarks,
  holdSegmentMembership,
  markPeopleDirty,
  takeDirtyPeople,
} from '../src/features/segments/membership.queries.ts';
import { queueDirtyAccounts, runDirtyRefresh } from '../src/features/segments/segments.jobs.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';

let ctx: TestContext;
let accountId: number;

beforeAll(async () => {
  ctx = await createTestContext();
  accountId = (await registerUser(ctx.app)).account.accountId as number;
});
afterAll(() => ctx.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('segment marks', () => {
  it('two refreshes of one account take different marked people and do not wait for each other', async () => {
    const other = await registerUser(ctx.app);
    const otherId = other.account.accountId as number;
    // Held, so that the worker leaves the marks to this test.
    const release = await holdSegmentRefreshes(ctx.services.pool, otherId);
    try {
      const marked = Array.from({ length: 10 }, (_, i) => 900_001 + i);
      await markPeopleDirty(ctx.services.db, otherId, marked);
      let taken!: () => void;
      const holding = new Promise<void>((resolve) => (taken = resolve));
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const first = ctx.services.db.transaction().execute(async (trx) => {
        const ids = await takeDirtyPeople(trx, otherId, 4);
        taken();
        await finished;
        return [...ids.keys()];
      });
      await holding;
      const second = await Promise.race([
        takeDirtyPeople(ctx.services.db, otherId, 100).then((marks) => [...marks.keys()]),
        // Not a wait for work: a deadline; a take blocked by the first's locked marks would still be waiting then.
        sleep(3_000).then(() => 'waited' as const),
      ]);
      finish();
      const firstIds = await first;
      expect(second).not.toBe('waited');
      expect(firstIds).toHaveLength(4);
      expect([...firstIds, ...(second as number[])].sort((a, b) => a - b)).toEqual(marked);
    } finally {
      await release();
    }
  });

  /** The plan of the take's statement as the tenant role, under the function's settings unless `bare`: each node's type and filter. */
  const takePlan = (bare = false) =>
    withAccount(ctx.services.db, accountId, async (trx) => {
      if (!bare)
        for (const [name, value] of Object.entries(takeMarksSettings))
          await sql`select set_config(${name}, ${value}, true)`.execute(trx);
      const statement = takeMarksBody.replace('$1', String(accountId)).replace('$2', '5000');
      const { rows } = await sql<{
        'QUERY PLAN': unknown;
      }>`explain (format json) ${sql.raw(statement)}`.execute(trx);
      // The function's disabled paths cost 10^10, past every JIT threshold: it must not compile itself.
      if (!bare) expect(Object.keys((rows[0]!['QUERY PLAN'] as [object])[0])).not.toContain('JIT');
      const found: { type: string; filter: string }[] = [];
      const walk = (node: {
        'Node Type': string;
        Filter?: string;
        'Join Filter'?: string;
        Plans?: unknown[];
      }) => {
        found.push({
          type: node['Node Type'],
          filter: `${node.Filter ?? ''} ${node['Join Filter'] ?? ''}`.trim(),
        });
        for (const child of node.Plans ?? []) walk(child as typeof node);
      };
      walk((rows[0]!['QUERY PLAN'] as [{ Plan: { 'Node Type': string } }])[0].Plan);
      return found;
    });

  it('takes marks by address, whatever the statistics say of the account', async () => {
    const db = ctx.services.db;
    const release = await holdSegmentRefreshes(ctx.services.pool, accountId);
    try {
      // The function runs with the settings the plans below are taken under.
      const { rows: config } = await sql<{
        proconfig: string[];
      }>`select proconfig from pg_proc where proname = 'herald_take_segment_marks'`.execute(db);
      expect(config[0]!.proconfig.sort()).toEqual(
        Object.entries(takeMarksSettings)
          .map(([name, value]) => `${name}=${value}`)
          .sort(),
      );

      // Statistics taken while the table held marks of another account (0, which no account has) only; then 3,000 of this account's.
      await sql`delete from segment_dirty_people`.execute(db);
      await sql`insert into segment_dirty_people (account_id, person_id) select 0, g from generate_series(1, 1000) g`.execute(
        db,
      );
      await sql`vacuum analyze segment_dirty_people`.execute(db);
      await sql`insert into segment_dirty_people (account_id, person_id) select ${accountId}::bigint, 800000 + g from generate_series(1, 3000) g`.execute(
        db,
      );
      // Written with `ctid = any(array(...))`, the delete read the account's marks through the policy's index, filtered by `ctid = ANY`.
      const unknown = await takePlan();
      expect(unknown.map((n) => n.type)).toContain('Tid Scan');
      expect(unknown.filter((n) => /ctid/i.test(n.filter))).toEqual([]);
      const taken = await withAccount(db, accountId, (trx) => takeDirtyPeople(trx, accountId, 5000));
      expect(taken.size).toBe(3000);

      // No statistics at all (a new install, where nothing has analyzed the table yet), 1,000 marks of another
      // account and 3,000 of this one: the planner estimated the account's marks at one row and drove the join from
      // them, comparing each mark with every picked address (9 million comparisons, 1.3-1.5 s a take).
      await sql`delete from pg_statistic where starelid = 'segment_dirty_people'::regclass`.execute(db);
      await sql`update pg_class set reltuples = -1, relpages = 0 where oid = 'segment_dirty_people'::regclass`.execute(
        db,
      );
      await sql`insert into segment_dirty_people (account_id, person_id) select 0, g from generate_series(1, 1000) g`.execute(
        db,
      );
      await sql`insert into segment_dirty_people (account_id, person_id) select ${accountId}::bigint, 800000 + g from generate_series(1, 3000) g`.execute(
        db,
      );
      const empty = await takePlan();
      expect(empty.map((n) => n.type)).toContain('Tid Scan');
      expect(empty.filter((n) => /ctid/i.test(n.filter))).toEqual([]);
      expect(await withAccount(db, accountId, (trx) => takeDirtyPeople(trx, accountId, 5000))).toHaveProperty(
        'size',
        3000,
      );

      // Statistics that know the account has many marks: left to choose, the planner hashes all of them.
      await sql`insert into segment_dirty_people (account_id, person_id) select ${accountId}::bigint, 800000 + g from generate_series(1, 50000) g`.execute(
        db,
      );
      await sql`vacuum analyze segment_dirty_people`.execute(db);
      expect((await takePlan(true)).map((n) => n.type)).toContain('Hash Join');
      const many = await takePlan();
      expect(many.map((n) => n.type)).toEqual(expect.arrayContaining(['Nested Loop', 'Tid Scan']));
      expect(many.map((n) => n.type)).not.toContain('Hash Join');
      expect(many.filter((n) => /ctid/i.test(n.filter))).toEqual([]);
      const next = await withAccount(db, accountId, (trx) => takeDirtyPeople(trx, accountId, 5000));
      expect(next.size).toBe(5000);
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from segment_dirty_people where account_id = ${accountId}`.execute(db);
      expect(rows[0]!.n).toBe(45000);
    } finally {
      await sql`delete from segment_dirty_people where account_id in (0, ${accountId})`.execute(db);
      await release();
    }
  });

  it('finds each account with marks once, by person or account-wide, and passes over accounts whose refreshes are held', async () => {
    // Accounts of negative ids (none exists), marked in a transaction that is rolled back: no refresh sees them.
    const held = await holdSegmentRefreshes(ctx.services.pool, -5);
    const rolledBack = new Error('rolled back');
    let found: number[] = [];
    try {
      await ctx.services.db
        .transaction()
        .execute(async (trx) => {
          await sql`insert into segment_dirty_people (account_id, person_id) values (-3, 1), (-3, 2), (-3, 3), (-1, 4), (-1, 5), (-5, 6), (-7, 7)`.execute(
            trx,
          );
          await sql`insert into segment_dirty_accounts (account_id) values (-2), (-1)`.execute(trx);
          found = (await accountsWithDirtyMarks(trx)).map(Number).filter((id) => id < 0);
          throw rolledBack;
        })
        .catch((error: unknown) => {
          if (error !== rolledBack) throw error;
        });
    } finally {
      await held();
    }
    expect(found.sort((a, b) => a - b)).toEqual([-7, -3, -2, -1]);
  });

  it('tells the poller which accounts have a stream of marks waiting (500 or more), so it looks less often', async () => {
    const rolledBack = new Error('rolled back');
    const seen: { marked: number; streaming: number }[] = [];
    await ctx.services.db
      .transaction()
      .execute(async (trx) => {
        await sql`delete from segment_dirty_people`.execute(trx);
        await sql`insert into segment_dirty_people (account_id, person_id) values (-11, 1), (-11, 2), (-11, 3)`.execute(
          trx,
        );
        seen.push(await queueDirtyAccounts(trx));
        await sql`insert into segment_dirty_people (account_id, person_id) select -12, g from generate_series(1, 499) g`.execute(
          trx,
        );
        seen.push(await queueDirtyAccounts(trx));
        await sql`insert into segment_dirty_people (account_id, person_id) values (-12, 500)`.execute(trx);
        seen.push(await queueDirtyAccounts(trx));
        throw rolledBack;
      })
      .catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });
    expect(seen).toEqual([
      { marked: 1, streaming: 0 },
      { marked: 2, streaming: 0 },
      { marked: 2, streaming: 1 },
    ]);
  });

  it('queues one refresh per account, after other jobs, and none beside a running one unless it is dead', async () => {
    const rolledBack = new Error('rolled back');
    const seen: { key: string | null; priority: number; locked: boolean }[][] = [];
    await ctx.services.db
      .transaction()
      .execute(async (trx) => {
        await sql`delete from segment_dirty_people`.execute(trx);
        await sql`insert into segment_dirty_people (account_id, person_id) values (-21, 1)`.execute(trx);
        const jobs = async () => {
          const { rows } = await sql<{ key: string | null; priority: number; locked: boolean }>`
            select key, priority, locked_at is not null as locked from graphile_worker._private_jobs
            where payload->>'accountId' = '-21' order by id`.execute(trx);
          seen.push(rows);
        };
        await queueDirtyAccounts(trx);
        await queueDirtyAccounts(trx);
        await jobs();
        // The refresh runs: a look meanwhile leaves it alone.
        await sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'test'
          where key = 'refresh-segments:-21'`.execute(trx);
        await queueDirtyAccounts(trx);
        await jobs();
        // Its worker died an hour ago: the look queues a fresh refresh and the dead one loses its key.
        await sql`update graphile_worker._private_jobs set locked_at = now() - interval '1 hour'
          where key = 'refresh-segments:-21'`.execute(trx);
        await queueDirtyAccounts(trx);
        await jobs();
        throw rolledBack;
      })
      .catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });
    const job = (locked: boolean, key: string | null = 'refresh-segments:-21') => ({
      key,
      priority: 1,
      locked,
    });
    expect(seen).toEqual([[job(false)], [job(true)], [job(true, null), job(false)]]);
  });

  it('leaves the people of a segment being rebuilt for a round a second later, not for the next look', async () => {
    const other = (await registerUser(ctx.app)).account.accountId as number;
    const key = `refresh-segments:${other}`;
    const { rows: segments } = await sql<{ id: number }>`
      select id from segments where account_id = ${other} and auto_type = 'new'`.execute(ctx.services.db);
    await markPeopleDirty(ctx.services.db, other, [700_001, 700_002]);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    // A rebuild of the account's New segment holds its membership meanwhile.
    const rebuild = ctx.services.db.connection().execute(async (connection) => {
      const unlock = await holdSegmentMembership(connection, segments[0]!.id);
      locked();
      await released;
      await unlock();
    });
    await lockTaken;
    let before = 0;
    let after = 0;
    try {
      before = Date.now();
      await runDirtyRefresh(ctx.services, other);
      after = Date.now();
    } finally {
      release();
      await rebuild;
    }
    const { rows: marks } = await sql<{ personId: string }>`
      select person_id as "personId" from segment_dirty_people where account_id = ${other} order by person_id`.execute(
      ctx.services.db,
    );
    const { rows: jobs } = await sql<{ runAt: number; priority: number }>`
      select (extract(epoch from run_at) * 1000)::float8 as "runAt", priority
      from graphile_worker._private_jobs where key = ${key}`.execute(ctx.services.db);
    await sql`delete from graphile_worker._private_jobs where key = ${key}`.execute(ctx.services.db);
    await sql`delete from segment_dirty_people where account_id = ${other}`.execute(ctx.services.db);
    expect(marks.map((m) => Number(m.personId))).toEqual([700_001, 700_002]);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.priority).toBe(1);
    // Queued for a second after the round ended (the clock of this machine, read before and after it ran).
    expect(jobs[0]!.runAt).toBeGreaterThanOrEqual(before + 1000);
    expect(jobs[0]!.runAt).toBeLessThanOrEqual(after + 1000);
  });
});
