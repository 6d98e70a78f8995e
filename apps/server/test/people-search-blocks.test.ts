import { sql } from 'kysely';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarisePeopleSearchBlocks } from '../src/features/people/people-search-blocks.jobs.ts';
import { createTestContext, registerUser, testDatabaseUrl, type TestContext } from './helpers.ts';
import { searchChecks } from './people-search-helpers.ts';
import { until } from './until.ts';

// Blocks of search entries (migration 0061): a search passes by the blocks whose letter and digit pairs lack one of
// its term's, and must still give the page a plain scan gives, also while people are written.
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
let accountId: number;
const older = 6000;
const newer = 6000;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  accountId = owner.account.accountId;
  // The older people have made-up names over a few letters (so blocks differ in the pairs they hold) at two domains;
  // the newer ones, like a big import's, hold none of those names or domains. A rare name is in the oldest block only.
  // Every ninth is archived.
  await sql`insert into people (account_id, email, first_name, last_name, archived_at)
    select ${accountId},
      case when g <= ${older}
        then translate(substr(md5(g::text), 1, 3 + g % 5), '0123456789abcdef', 'aeiouklmnrstxyz.')
          || g || case when g % 4 = 0 then '@gmail.com' else '@hoo.example' end
        else 'imp-' || g || '@bench-import.example' end,
      case when g <= ${older} then translate(substr(md5('f' || g), 1, 4), '0123456789abcdef', 'aeioulnrstxyz-.''') else 'First' || g % 97 end,
      case when g between 100 and 400 and g % 20 = 0 then 'Zebulon' end,
      case when g % 9 = 0 then now() end
    from generate_series(1, ${older + newer}) g order by g`.execute(ctx.services.db);
  expect(await summarisePeopleSearchBlocks(ctx.services.pool, accountId)).toBeGreaterThan(8);
}, 120_000);
afterAll(() => ctx.close());

const checks = () => searchChecks(ctx, owner);
const page = (query: string, n: number) => checks().page(query, n);
const scan = (query: string, n: number) => checks().scan(query, n);
const ways = (term: string) => checks().ways(term);

/** The id of the account's person at this place among the people not archived, oldest first. */
const personAt = async (offset: number) =>
  Number(
    (
      await sql<{ id: string }>`select id from people where account_id = ${accountId}
        and archived_at is null order by id limit 1 offset ${offset}`.execute(ctx.services.db)
    ).rows[0]!.id,
  );

const stages = async () =>
  (
    await sql<{ stage: number; n: number }>`select stage, count(*)::int as n from people_search_blocks
      where account_id = ${accountId} group by stage order by stage`.execute(ctx.services.db)
  ).rows;

describe('blocks of search entries', () => {
  it('are cut into about a thousand entries each, all summarised but the newest', async () => {
    const rows = await stages();
    expect(rows.find((r) => r.stage === 0)?.n).toBe(1);
    expect(rows.find((r) => r.stage === 2)?.n).toBe(Math.floor((older + newer) / 1024));
  });

  it.each([
    ['gmail.com', 'a domain the newer half lacks: its blocks are passed by'],
    ['zebulon', 'a rare name among the older people'],
    ['ke', 'two letters'],
    ['@hoo', 'punctuation'],
    ['imp-11', 'a term of the newer people'],
    ['first1', 'a name of the newer people'],
    ['qqqnone', 'nobody'],
  ])('%s (%s) gives the pages a plain scan gives', async (term) => {
    for (const n of [0, 1]) expect(await page(term, n)).toEqual(await scan(term, n));
  });

  it('answer a term absent from the newest blocks without the index', async () => {
    // Only the oldest block and the open newest may hold "zebulon": both are read, and the page is the whole answer.
    expect(await ways('zebulon')).toEqual([
      expect.stringMatching(/^herald_search_people: walked every block that may hold the term/),
    ]);
    expect((await scan('zebulon', 0)).length).toBeGreaterThan(5);
  });

  it('give the page a plain scan gives for any term (property)', async () => {
    const letters = 'aeiouklmnrstxyz.-@';
    await fc.assert(
      fc.asyncProperty(
        fc
          .array(fc.constantFrom(...letters.split('')), { minLength: 2, maxLength: 5 })
          .map((c) => c.join('')),
        async (term) => {
          expect(await page(term, 0)).toEqual(await scan(term, 0));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('make a block unknown when a person in it is written, so the search finds the new text', async () => {
    const { db } = ctx.services;
    const id = await personAt(10);
    expect(await page('wqjv', 0)).toEqual([]);
    await sql`update people set last_name = 'Wqjvsen' where id = ${id}`.execute(db);
    expect(await page('wqjv', 0)).toEqual([id]);
    expect((await stages()).find((r) => r.stage === 0)?.n).toBe(2);
    await summarisePeopleSearchBlocks(ctx.services.pool, accountId);
    expect((await stages()).find((r) => r.stage === 0)?.n).toBe(1);
    expect(await page('wqjv', 0)).toEqual([id]);
  });

  it('are summarised only once the writers that saw them unknown have ended', async () => {
    const { db } = ctx.services;
    const id = await personAt(2000);
    // Make the block unknown, then have a writer change a person in it while it is unknown: its trigger leaves the
    // block alone. The summary must wait for that writer, or it would leave out the new name and be passed by.
    await sql`update people set first_name = first_name where id = ${id}`.execute(db);
    await sql`update people set last_name = 'Unknownblock' where id = ${id}`.execute(db);
    const writer = new pg.Client({ connectionString: testDatabaseUrl() });
    await writer.connect();
    let finished = false;
    try {
      await writer.query('begin');
      await writer.query(`update people set last_name = 'Vyxrace' where id = $1`, [id]);
      const summary = summarisePeopleSearchBlocks(ctx.services.pool, accountId).then((n) => {
        finished = true;
        return n;
      });
      await until(
        async () =>
          (
            await sql<{ n: number }>`select count(*)::int as n from people_search_blocks
              where account_id = ${accountId} and stage = 1`.execute(db)
          ).rows[0]!.n > 0,
        { timeout: 10_000, message: 'the summary marked no block' },
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(finished).toBe(false);
      await writer.query('commit');
      expect(await summary).toBeGreaterThan(0);
    } finally {
      await writer.end();
    }
    expect((await stages()).find((r) => r.stage === 0)?.n).toBe(1);
    expect(await page('vyxrace', 0)).toEqual([id]);
  });

  it('leave the blocks walked when a writer outlasts the wait', async () => {
    const { db } = ctx.services;
    const id = await personAt(4000);
    await sql`update people set last_name = 'Outlast' where id = ${id}`.execute(db);
    const writer = new pg.Client({ connectionString: testDatabaseUrl() });
    await writer.connect();
    try {
      await writer.query('begin');
      await writer.query(`update people set last_name = 'Kwopfar' where id = $1`, [id]);
      expect(await summarisePeopleSearchBlocks(ctx.services.pool, accountId, 300)).toBeNull();
      await writer.query('commit');
    } finally {
      await writer.end();
    }
    expect(await page('kwopfar', 0)).toEqual([id]);
    expect(await summarisePeopleSearchBlocks(ctx.services.pool, accountId)).toBeGreaterThan(0);
    expect(await page('kwopfar', 0)).toEqual([id]);
  });
});
