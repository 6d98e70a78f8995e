import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { rollupLockKey } from '../src/db/migrations/0038-rollup-without-row-keys.ts';
import { registerUser } from './helpers.ts';
import { waitingOnALock } from './lock-waits.ts';
import { accountOf, ctx, record, roll, stats, useMetricsContext } from './metrics-fixtures.ts';
import { until } from './until.ts';

useMetricsContext();

describe('the rollup', () => {
  it('counts a batch whose transaction commits after later batches were rolled up', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = accountOf(owner);
    const client = await ctx.database.pool.connect();
    try {
      await client.query('begin');
      await client.query(
        `insert into events (account_id, person_id, type, name, source, data) values ($1, 1, 'email', 'sent', 'email', '{"broadcastId": 3, "emailId": 4}')`,
        [accountId],
      );
      // A later insert commits first and is rolled up while the first is still open.
      await record(accountId, [{ person: 2, name: 'sent', data: { broadcastId: 3, emailId: 4 } }]);
      await roll();
      expect((await stats(owner.client, 'period=thisYear')).body.stats.totals.sent).toBe(1);
      await client.query('commit');
    } finally {
      client.release();
    }
    await roll();
    expect((await stats(owner.client, 'period=thisYear')).body.stats.totals.sent).toBe(2);
  });

  it('adds concurrent batches of the pipeline without losing or doubling any', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = accountOf(owner);
    const batches = Array.from({ length: 8 }, (_, b) =>
      Array.from({ length: 250 }, (_, i) => ({
        person: b * 250 + i + 1,
        name: 'sent',
        data: { broadcastId: 9, emailId: 4 },
      })),
    );
    await Promise.all([...batches.map((batch) => record(accountId, batch)), roll(), roll()]);
    await roll();
    expect((await stats(owner.client, 'broadcastId=9&period=thisYear')).body.stats.totals.sent).toBe(2000);
  });

  it("leaves out the queued events of an account deleted meanwhile and rolls up the others' figures", async () => {
    const gone = await registerUser(ctx.app);
    const kept = await registerUser(ctx.app);
    // The queue has no key to accounts: the gone account's events wait there after its delete. The rollup's lock
    // is held meanwhile, so that the worker's poller cannot take them before the delete.
    const lock = await ctx.database.pool.connect();
    try {
      await lock.query('select pg_advisory_lock($1)', [rollupLockKey]);
      await record(accountOf(gone), [
        { person: 1, name: 'opened', data: { broadcastId: 3, emailId: 4, machine: false } },
      ]);
      await record(accountOf(kept), [
        { person: 1, name: 'opened', data: { broadcastId: 3, emailId: 4, machine: false } },
      ]);
      // Deleting an account takes the rollup's lock too: on this connection, which holds it already.
      await lock.query('delete from accounts where id = $1', [accountOf(gone)]);
    } finally {
      await lock.query('select pg_advisory_unlock($1)', [rollupLockKey]);
      lock.release();
    }
    await roll();
    const totals = (await stats(kept.client, 'period=thisYear')).body.stats.totals;
    expect(totals.opened).toBe(1);
    expect(totals.uniqueOpens).toBe(1);
    const left = await sql<{
      n: string;
    }>`select count(*)::text as n from email_metric_queue where account_id = ${accountOf(gone)}`.execute(
      ctx.services.db,
    );
    expect(left.rows[0]!.n).toBe('0');
  });

  it("deletes an account's per-recipient rollup rows with it, a rollup under way included", async () => {
    const gone = await registerUser(ctx.app);
    const id = accountOf(gone);
    await record(id, [{ person: 1, name: 'opened', data: { broadcastId: 3, emailId: 4, machine: false } }]);
    await roll();
    const rowsOf = async () =>
      (
        await sql<{
          n: string;
        }>`select count(*)::text as n from email_metric_firsts where account_id = ${id}`.execute(
          ctx.services.db,
        )
      ).rows[0]!.n;
    expect(await rowsOf()).toBe('1');
    // A rollup that holds its lock while the account is deleted: the delete waits for it, then takes its rows too.
    await record(id, [
      {
        person: 2,
        name: 'clicked',
        data: { broadcastId: 3, emailId: 4, machine: false, link: 'https://example.com/' },
      },
    ]);
    const rollup = await ctx.database.pool.connect();
    try {
      await rollup.query('begin');
      await rollup.query('select pg_advisory_xact_lock($1)', [rollupLockKey]);
      const deleted = sql`delete from accounts where id = ${id}`.execute(ctx.services.db);
      await waitingOnALock(ctx.database.pool, 'delete from accounts');
      // A person of its own (99): the worker's own rollup may already have written person 2's row for the event
      // recorded above, and the same key would then be a duplicate (seen once in CI).
      await rollup.query(
        `insert into email_metric_firsts (account_id, source_kind, source_id, email_id, step_id, person_id, name, first_at, variant)
         values ($1, 'broadcast', 3, 4, '', 99, 'clicked', now(), 0)`,
        [id],
      );
      await rollup.query('commit');
      await deleted;
    } catch (error) {
      // Never hand the pool a connection inside a failed transaction that holds the rollup's lock: the next test's
      // requests would fail on it.
      await rollup.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      rollup.release();
    }
    expect(await rowsOf()).toBe('0');
  });

  it('runs in the worker: figures include new events within seconds', async () => {
    const owner = await registerUser(ctx.app);
    await record(accountOf(owner), [{ person: 1, name: 'sent', data: { broadcastId: 5, emailId: 6 } }]);
    const sent = await until(
      async () => (await stats(owner.client, 'period=thisYear')).body.stats.totals.sent as number,
      { timeout: 15_000, interval: 250, message: 'the sent event in the figures' },
    );
    expect(sent).toBe(1);
  });
});
