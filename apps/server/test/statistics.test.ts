import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshBulkStatistics } from '../src/db/statistics.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
});

/** How many of the account's people the planner believes there are. */
async function plannedPeople(accountId: number): Promise<number> {
  const { rows } = await sql<{
    'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }];
  }>`explain (format json) select id from people where account_id = ${accountId}`.execute(ctx.services.db);
  return rows[0]!['QUERY PLAN'][0].Plan['Plan Rows'];
}

/** Changes to people since their last analysis, as PostgreSQL's statistics report them (flushed within a second or so). */
async function peopleChanged(): Promise<number> {
  const { rows } = await sql<{
    n: string;
  }>`select n_mod_since_analyze as n from pg_stat_user_tables where schemaname = 'public' and relname = 'people'`.execute(
    ctx.services.db,
  );
  return Number(rows[0]!.n);
}

describe('statistics of bulk-filled tables', () => {
  it(
    'analyzes people once an import has filled an account, so that a send looks its people up by id',
    { timeout: 60_000 },
    async () => {
      const { accountId } = (await registerUser(ctx.app)).account as { accountId: number };
      await sql`analyze people`.execute(ctx.services.db);
      expect(await plannedPeople(accountId)).toBeLessThan(100);
      const { rows } = await sql<{ n: string }>`select count(*) as n from people`.execute(ctx.services.db);
      const filled = 6_000 + Math.ceil(Number(rows[0]!.n) / 5);
      await sql`insert into people (account_id, email) select ${accountId}, 'stats' || g || '@example.com' from generate_series(1, ${filled}::int) g`.execute(
        ctx.services.db,
      );
      const deadline = Date.now() + 20_000;
      while ((await peopleChanged()) < filled && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 200));
      // Until analyzed, the planner holds the account to have next to nobody.
      expect(await plannedPeople(accountId)).toBeLessThan(100);
      await refreshBulkStatistics(ctx.services.db, true);
      expect(await plannedPeople(accountId)).toBeGreaterThan(filled / 2);
    },
  );
});
