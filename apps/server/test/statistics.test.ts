import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeLagging } from '../src/db/statistics.ts';
import { createTestContext, type TestContext } from './helpers.ts';
import { until } from './until.ts';

/**
 * The bulk tables are analyzed when rows came in, not when rows changed: a send updates each of its rows twice and
 * would otherwise have its table analyzed every few seconds. Checked on a table of the test's own, so no other test's
 * rows count.
 */
let ctx: TestContext;
const table = `statistics_probe_${process.pid}_${Date.now()}`;
beforeAll(async () => {
  ctx = await createTestContext();
  await ctx.database.pool.query(`create table ${table} (id int, value int)`);
});
afterAll(async () => {
  await ctx.database.pool.query(`drop table if exists ${table}`);
  await ctx.close();
});

/** Run a statement and make its counts visible to other sessions at once (PostgreSQL sends them up to seconds later). */
async function write(text: string) {
  const client = await ctx.database.pool.connect();
  try {
    await client.query(text);
    await client.query('select pg_stat_force_next_flush()');
  } finally {
    client.release();
  }
}

/** Wait until the table's counts show `inserted` rows inserted and `changed` changes since its last analysis. */
async function countsShow(inserted: number, changed: number) {
  await until(
    async () => {
      const { rows } = await ctx.database.pool.query<{ inserted: string; changed: string }>(
        'select n_tup_ins as inserted, n_mod_since_analyze as changed from pg_stat_user_tables where relname = $1',
        [table],
      );
      return Number(rows[0]?.inserted) === inserted && Number(rows[0]?.changed) === changed;
    },
    {
      timeout: 10_000,
      message: `the counts of ${table} showing ${inserted} inserted and ${changed} changed`,
    },
  );
}

describe('statistics of the bulk tables', () => {
  it('analyzes a table once a tenth of its size (at least 5,000 rows) came in since, and not for updates of its rows', async () => {
    await write(`insert into ${table} select i, 0 from generate_series(1, 20000) i`);
    await countsShow(20000, 20000);
    expect(await analyzeLagging(ctx.services.db, [table])).toEqual([table]);
    await countsShow(20000, 0);

    // Every row updated twice, as a send does: no new rows, no analysis.
    await write(`update ${table} set value = 1`);
    await write(`update ${table} set value = 2`);
    await countsShow(20000, 40000);
    expect(await analyzeLagging(ctx.services.db, [table])).toEqual([]);

    // 4,000 new rows are fewer than 5,000: not yet; 2,000 more are enough.
    await write(`insert into ${table} select i, 0 from generate_series(20001, 24000) i`);
    await countsShow(24000, 44000);
    expect(await analyzeLagging(ctx.services.db, [table])).toEqual([]);
    await write(`insert into ${table} select i, 0 from generate_series(24001, 26000) i`);
    await countsShow(26000, 46000);
    expect(await analyzeLagging(ctx.services.db, [table])).toEqual([table]);
    expect(await analyzeLagging(ctx.services.db, [table])).toEqual([]);
  });
});
