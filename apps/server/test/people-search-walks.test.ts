import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { searchPeopleQuery } from '../src/features/people/people.queries.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';
import { searchChecks } from './people-search-helpers.ts';

// The search function answers a term by one of four ways (migrations 0054, 0063): the newest 2,000 entries, a walk on
// to 20,000, the grams index a stretch of people at a time, or a scan. Each way must give the page a plain scan gives.
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
const total = 24_000;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  const accountId = owner.account.accountId;
  // Person g (1 is the oldest) carries the words below in their email; every seventh is archived.
  await sql`insert into people (account_id, email, first_name, last_name, archived_at)
    select ${accountId}, 'w' || g
        || case when g % 3 = 0 then '-qqdense' else '' end
        || case when g % 100 = 0 then '-qqmedium' else '' end
        -- Common enough among the newest 2,000 to promise a page in 20,000, then absent until past 20,000.
        || case when (g > ${total - 2000} and g % 150 = 0) or (g <= 4000 and g % 150 = 0) then '-qqfront' else '' end
        || case when g % 1000 = 0 then '-qqrare' else '' end
        || '@walks.example',
      case when g % 2 = 0 then 'Walker' end,
      -- Three last names the old trigram index's key read alike (punctuation as a letter): each must find only itself.
      case g % 1000 when 1 then 'Xqey' when 2 then 'X.ey' when 3 then 'X_ey' end,
      case when g % 7 = 0 then now() end
    from generate_series(1, ${total}) g order by g`.execute(ctx.services.db);
}, 120_000);
afterAll(() => ctx.close());

const checks = () => searchChecks(ctx, owner);
const page = (query: string, n: number) => checks().page(query, n);
const scan = (query: string, n: number) => checks().scan(query, n);

describe('people search over terms of every frequency', () => {
  it.each([
    ['qqdense', 'a third of the people: a page in the newest 2,000'],
    ['qqmedium', 'one in a hundred: the walk goes on to 20,000'],
    ['qqfront', 'common among the newest, then absent: the walk comes up short and the grams answer'],
    ['qqrare', 'one in a thousand: the grams answer at once'],
    ['walker', 'half of the people, in their first name'],
    ['zzqqnone', 'nobody'],
    ['0-qqrare', 'punctuation, one in a thousand: the grams hold the hyphen'],
    ['x.ey', 'a dot, not a q or an underscore'],
    ['x_ey', 'an underscore, which a pattern must not take for any character'],
    ['xqey', 'a q, not a dot or an underscore'],
  ])('%s (%s) gives the pages a plain scan gives', async (term) => {
    for (const n of [0, 1]) {
      const expected = await scan(term, n);
      expect(await page(term, n)).toEqual(expected);
    }
    // The terms were chosen to reach every way; make sure the data says so.
    if (term === 'qqfront') expect((await scan(term, 0)).length).toBeLessThan(100);
    if (term === 'qqmedium') expect((await scan(term, 1)).length).toBe(100);
    if (term.endsWith('ey')) {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from people
        where account_id = ${owner.account.accountId} and archived_at is null and lower(last_name) = ${term}`.execute(
        ctx.services.db,
      );
      expect((await page(term, 0)).length).toBe(rows[0]!.n);
    }
  });
});

describe('a term too short for a piece of three characters', () => {
  it('finds the older people who hold it by a scan of the entries, not through the grams', async () => {
    const { db } = ctx.services;
    const accountId = owner.account.accountId;
    // Thirty of the oldest people get a last name with "zj", which no other entry holds: the newest 2,000 entries
    // come up empty, and a term of two characters has no piece of three for the grams index.
    await sql`update people set last_name = 'Zjork' where account_id = ${accountId} and id in (
      select id from people where account_id = ${accountId} and last_name is null and archived_at is null
      order by id limit 30)`.execute(db);
    expect(await page('zj', 0)).toEqual(await scan('zj', 0));
    expect((await scan('zj', 0)).length).toBe(30);
    // Which way each term took: the function tells a client that asks for debug messages.
    const { ways } = checks();
    expect(await ways('zj')).toEqual(['herald_search_people: short term, scanned']);
    expect(await ways('qqrare')).toEqual(['herald_search_people: grams']);
  });
});

describe('a search while the people table has no statistics yet', () => {
  it('calls the search function once, not once for every person of the account', async () => {
    // Right after a big insert, before autovacuum has analysed the table (a busy machine, a fresh database), the
    // planner reads `archived_at is null` as rare and took the account's 24,000 people for one: it made the
    // search function the inner side of a semi-join and called it for each of them, past the 30 s time limit.
    const { db } = ctx.services;
    const accountId = owner.account.accountId;
    await sql`alter table people set (autovacuum_enabled = false)`.execute(db);
    try {
      await sql`delete from pg_statistic where starelid = 'people'::regclass`.execute(db);
      const plan = await withAccount(db, accountId, async (tx) => {
        // Of the plans that fit, leave only those that would call it again (no hashed or sorted copy of its ids to
        // re-read), and stop a call per person well before the test's time limit.
        await sql`select set_config('enable_hashagg', 'off', true), set_config('enable_sort', 'off', true),
          set_config('enable_material', 'off', true), set_config('statement_timeout', '5000', true)`.execute(
          tx,
        );
        const query = searchPeopleQuery(tx, accountId, 'qqrare', 0, 100).compile();
        const explained = CompiledQuery.raw(`explain (analyze, format json) ${query.sql}`, [
          ...query.parameters,
        ]);
        return (await tx.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(explained)).rows[0]![
          'QUERY PLAN'
        ][0].Plan;
      });
      const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
      const calls = nodes(plan).filter((n) => n['Node Type'] === 'ProjectSet');
      expect(calls).toHaveLength(1);
      expect(calls[0]!['Actual Loops']).toBe(1);
    } finally {
      await sql`alter table people reset (autovacuum_enabled)`.execute(db);
      await sql`analyze people`.execute(db);
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}
