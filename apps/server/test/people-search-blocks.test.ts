import { sql } from 'kysely';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarisePeopleSearchBlocks } from '../src/features/people/people-search-blocks.jobs.ts';
import { createTestContext, registerUser, testDatabaseUrl, type TestContext } from './helpers.ts';
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

const page = async (query: string, n: number) => {
  const res = await owner.client.get(`/v1/people/search?query=${encodeURIComponent(query)}&page=${n}`);
  expect(res.status).toBe(200);
  return (res.body.users as { id: number }[]).map((u) => u.id);
};
/** The same page by a plain scan of the account's people, newest first. */
const scan = async (query: string, n: number) =>
  (
    await sql<{ id: string }>`select p.id from people p
      where p.account_id = ${accountId} and p.archived_at is null
        and lower(coalesce(p.email, '') || ' ' || coalesce(p.first_name, '') || ' ' || coalesce(p.last_name, ''))
          like ${`%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`}
      order by p.id desc limit 100 offset ${n * 100}`.execute(ctx.services.db)
  ).rows.map((r) => Number(r.id));

/** The debug messages the search function sends for a term: which way it took. */
const ways = async (term: string) => {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  const notices: string[] = [];
  client.on('notice', (notice) => notices.push(notice.message ?? ''));
  await client.connect();
  try {
    await client.query(`select set_config('herald.account_id', $1, false)`, [String(accountId)]);
    await client.query(`set client_min_messages = debug1`);
    await client.query(`select count(*) from herald_search_people($1, 101, 0)`, [term]);
    return notices.filter((m) => m.startsWith('herald_search_people:'));
  } finally {
    await client.end();
  }
};

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
    const { rows } = await sql<{ id: string }>`select id from people where account_id = ${accountId}
      and archived_at is null order by id limit 1 offset 10`.execute(db);
    const id = Number(rows[0]!.id);
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
    const { rows } = await sql<{ id: string }>`select id from people where account_id = ${accountId}
      and archived_at is null order by id limit 1 offset 2000`.execute(db);
    const id = Number(rows[0]!.id);
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
    const { rows } = await sql<{ id: string }>`select id from people where account_id = ${accountId}
      and archived_at is null order by id limit 1 offset 4000`.execute(db);
    const id = Number(rows[0]!.id);
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
