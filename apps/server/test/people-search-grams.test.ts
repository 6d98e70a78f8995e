import { sql } from 'kysely';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';
import { searchChecks } from './people-search-helpers.ts';

// The grams index (migration 0063): a term the walks leave is answered a stretch of 131,072 person ids at a time,
// newest first, until the page is full. The account's people are spread over four stretches here (the people id
// sequence is moved past a stretch's end between the groups), and every page must be the one a plain scan gives.
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
const stretch = 131_072;
const groups = [500, 500, 500, 3000];
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  const { db } = ctx.services;
  const accountId = owner.account.accountId;
  for (const [k, size] of groups.entries()) {
    // The next person starts a stretch of its own.
    await sql`select setval(pg_get_serial_sequence('people', 'id'),
      (nextval(pg_get_serial_sequence('people', 'id')) / ${stretch} + 1) * ${stretch})`.execute(db);
    const newest = k === groups.length - 1;
    // Every group holds "qqgram" (the newest rarely), the oldest alone holds "qqoldest"; every sixth is archived.
    await sql`insert into people (account_id, email, first_name, last_name, archived_at)
      select ${accountId}, 'g' || ${k} || '-' || g
          || case when g % ${newest ? 600 : 12} = 1 then '-qqgram' else '' end
          || case when ${k} = 0 and g % 50 = 1 then '-qqoldest' else '' end
          || '@grams.example',
        case when g % 97 = 1 then 'Ёлка Мария' when g % 89 = 1 then '50%_off' end,
        case when ${k} = 1 and g = 7 then 'g3-2@grams.example' end,
        case when g % 6 = 0 then now() end
      from generate_series(1, ${size}) g order by g`.execute(db);
  }
}, 120_000);
afterAll(() => ctx.close());

const checks = () => searchChecks(ctx, owner);
const page = (query: string, n: number) => checks().page(query, n);
const scan = (query: string, n: number) => checks().scan(query, n);

describe('people search through the grams, a stretch of people at a time', () => {
  it('spreads the account over four stretches', async () => {
    const { rows } = await sql<{ n: number }>`select count(distinct id / ${stretch})::int as n from people
      where account_id = ${owner.account.accountId}`.execute(ctx.services.db);
    expect(rows[0]!.n).toBe(4);
  });

  it.each([
    ['qqgram', 'rare among the newest: the page takes every stretch'],
    ['qqoldest', 'only in the oldest stretch: the newer ones give nothing'],
    ['g3-2@grams.example', 'a whole email, also held by an older person’s name'],
    ['ёлка', 'a name in another script'],
    ['ёлка мария', 'two words'],
    ['50%_', 'a percent sign and an underscore, which a pattern must not take for any character'],
    ['zzqqnone', 'nobody'],
  ])('%s (%s) gives the pages a plain scan gives', async (term) => {
    for (const n of [0, 1]) expect(await page(term, n)).toEqual(await scan(term, n));
    const found = await scan(term, 0);
    if (term === 'qqgram') {
      expect(found.length).toBe(100);
      expect(new Set(found.map((id) => Math.floor(id / stretch))).size).toBe(4);
    }
    if (term === 'g3-2@grams.example') expect(found.length).toBe(2);
  });

  it('takes the grams for a term the walks leave, and scans a term of two characters', async () => {
    const { ways } = checks();
    expect(await ways('qqoldest')).toEqual(['herald_search_people: grams']);
    expect(await ways('qg')).toEqual(['herald_search_people: short term, scanned']);
  });

  it('gives the page a plain scan gives for any term (property)', async () => {
    const letters = 'gq0123-@.ёл ';
    await fc.assert(
      fc.asyncProperty(
        fc
          .array(fc.constantFrom(...letters.split('')), { minLength: 3, maxLength: 6 })
          .map((c) => c.join('').trim())
          .filter((t) => t.length >= 3),
        fc.constantFrom(0, 1),
        async (term, n) => {
          expect(await page(term, n)).toEqual(await scan(term, n));
        },
      ),
      { numRuns: 40 },
    );
  });
});
