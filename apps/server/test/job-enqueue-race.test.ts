/**
 * A keyed job asked for again while a worker is taking it (docs/operations.md, "Jobs asked for while a worker takes
 * them"): graphile-worker's add_job updates a waiting job of the key only while it is unlocked, and a worker's lock
 * not yet committed hides from it. Asked for in that moment, the request found neither a job to update nor room for a
 * new one, and was dropped: the worker went on with a world state from before the change. Each of Herald's three
 * ways of adding a job must leave a job of the key waiting to run after the one in progress.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDatabaseUrl, type TestContext } from './helpers.ts';
import { until } from './until.ts';

let ctx: TestContext;
const clients: pg.Client[] = [];

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: testDatabaseUrl() });
  await c.connect();
  clients.push(c);
  return c;
}

beforeAll(async () => {
  ctx = await createTestContext();
  // The worker's own migration makes the queue's schema; it runs no job of the made-up task below.
  await ctx.startWorker();
});
afterAll(async () => {
  for (const c of clients) await c.end().catch(() => undefined);
  await ctx.close();
});

interface KeyedJob {
  id: string;
  key: string | null;
  locked: boolean;
  attempts: number;
  maxAttempts: number;
}

/** Each way of adding a job, as the SQL that asks for one of the key. */
const adders: Record<string, string> = {
  herald_enqueue: `select herald_enqueue('enqueue-race-probe', '{}', $1, now(), 5)`,
  herald_enqueue_soonest: `select herald_enqueue_soonest('enqueue-race-probe', '{}', $1, now() + interval '1 minute', 5)`,
  herald_enqueue_coalesced: `select herald_enqueue_coalesced('enqueue-race-probe', '{}', $1)`,
};

describe('adding a keyed job while a worker takes the waiting one', () => {
  for (const [name, text] of Object.entries(adders)) {
    it(`${name} leaves a job of the key waiting after the one a worker took`, async () => {
      const [setup, worker, asker] = await Promise.all([client(), client(), client()]);
      const key = `enqueue-race:${name}:${Date.now()}`;
      await setup.query(`select herald_enqueue('enqueue-race-probe', '{}', $1, now(), 5)`, [key]);

      // A worker takes the job: its lock is written but not yet committed.
      await worker.query('begin');
      await worker.query(
        `update graphile_worker._private_jobs set locked_at = now(), locked_by = $2 where key = $1`,
        [key, key],
      );
      // Meanwhile a change asks for the job again, and waits for the worker's row.
      await asker.query('begin');
      const asked = asker.query(text, [key]);
      await until(
        async () =>
          (
            await setup.query<{ waiting: boolean }>(
              `select wait_event_type = 'Lock' as waiting from pg_stat_activity where pid = $1`,
              [(asker as unknown as { processID: number }).processID],
            )
          ).rows[0]?.waiting === true,
        { timeout: 5_000, message: () => 'the request waited for the worker’s lock' },
      );
      await worker.query('commit');
      await asked;
      await asker.query('commit');

      const { rows } = await setup.query<KeyedJob>(
        `select id, key, locked_at is not null as locked, attempts, max_attempts as "maxAttempts"
           from graphile_worker._private_jobs where locked_by = $1 or key = $1 order by id`,
        [key],
      );
      // The job in progress keeps running; a fresh job of the key waits for the change.
      expect(rows.filter((r) => r.locked)).toHaveLength(1);
      const waiting = rows.filter((r) => !r.locked);
      expect(waiting, JSON.stringify(rows)).toHaveLength(1);
      expect(waiting[0]!.key).toBe(key);
      expect(waiting[0]!.attempts).toBe(0);
      expect(rows.find((r) => r.locked)!.key).toBeNull();
      await setup.query(`delete from graphile_worker._private_jobs where id = any($1::bigint[])`, [
        rows.map((r) => r.id),
      ]);
    });
  }
});
