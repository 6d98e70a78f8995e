import { archivedSegmentId } from '@herald/contracts';
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { allRoutes } from '../src/app/routes.ts';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';

/**
 * The cross-account probe: account A holds data marked with a unique canary; account B calls every
 * route of the route table (so a new route is covered without anyone remembering) with A's ids,
 * by session and by API key. Nothing may answer with A's data or change it.
 */
let ctx: TestContext;
const canary = `CANARY${crypto.randomBytes(6).toString('hex')}`;
let a: Awaited<ReturnType<typeof registerUser>>;
let b: Awaited<ReturnType<typeof registerUser>>;
let aIds: number[];
let aKey: string;
let bKey: string;
let teammateId: number;
let subId: number;
/** B's own communication categories, made at its registration. */
let bCategoryIds: number[];

beforeAll(async () => {
  ctx = await createTestContext();
  a = await registerUser(ctx.app);
  await a.client.patch('/v1/accounts/me', { name: canary, mailingAddress: `${canary} street` });
  teammateId = (
    await a.client.post('/v1/team-members', { name: canary, email: `${canary.toLowerCase()}@example.com` })
  ).body.teamMember.id;
  subId = (await a.client.post('/v1/team-members/accounts', { name: canary })).body.subaccount.id;
  aKey = (await a.client.post('/v1/accounts/rotate-api-key')).body.apiKey;
  await ctx.services.db
    .insertInto('accountIssues')
    .values({ accountId: a.account.accountId, kind: 'probe', message: canary })
    .execute();
  const issue = await ctx.services.db
    .selectFrom('accountIssues')
    .select('id')
    .where('accountId', '=', a.account.accountId)
    .executeTakeFirstOrThrow();
  const person = await a.client.post('/v1/people/', {
    email: `${canary.toLowerCase()}-person@example.com`,
    firstName: canary,
    tags: canary,
  });
  const segment = await a.client.post('/v1/segments/', {
    name: canary,
    conditions: [{ type: 'tag', operator: 'has', tag: canary }],
  });
  aIds = [
    a.account.accountId,
    a.account.teamMemberId,
    teammateId,
    subId,
    issue.id,
    person.body.user.id,
    segment.body.segment.id,
  ];
  b = await registerUser(ctx.app);
  bKey = (await b.client.post('/v1/accounts/rotate-api-key')).body.apiKey;
  const bCategories = await ctx.services.db
    .selectFrom('communicationCategories')
    .select('id')
    .where('accountId', '=', b.account.accountId)
    .execute();
  bCategoryIds = bCategories.map((row) => Number(row.id));
});
afterAll(() => ctx.close());

describe('tenant isolation', () => {
  it("no route answers account B with account A's data or lets B change it", async () => {
    // Routes that take A's ids first: once B starts creating things, B's new ids could equal A's.
    const rank = (url: string) => (url.endsWith('/logout') ? 2 : /:[a-zA-Z]+/.test(url) ? 0 : 1);
    const tenantRoutes = allRoutes.filter((r) => r.tenant).sort((x, y) => rank(x.url) - rank(y.url));
    let calls = 0;
    for (const route of tenantRoutes) {
      const hasParams = /:[a-zA-Z]+/.test(route.url);
      // Segment id 1 is every account's own virtual Archived segment, not something of A's.
      // And an id of A's (a person's, say) that equals one of B's own categories names B's category, not A's.
      const ids = route.url.startsWith('/v1/segments/')
        ? aIds.filter((id) => id !== archivedSegmentId)
        : route.url.startsWith('/v1/settings/communication-categories/')
          ? aIds.filter((id) => !bCategoryIds.includes(Number(id)))
          : aIds;
      const urls = hasParams ? ids.map((id) => route.url.replace(/:[a-zA-Z]+/g, String(id))) : [route.url];
      for (const url of urls) {
        for (const mode of ['session', 'api-key'] as const) {
          const headers: Record<string, string> =
            mode === 'api-key' ? { authorization: `Bearer ${bKey}` } : {};
          const res = await b.client.request(route.method, url, {
            ...(route.example !== undefined ? { body: route.example } : {}),
            headers,
          });
          calls += 1;
          const text = JSON.stringify(res.body ?? '');
          expect(text, `${mode} ${route.method} ${url}`).not.toContain(canary);
          expect(text.toLowerCase(), `${mode} ${route.method} ${url}`).not.toContain(canary.toLowerCase());
          if (hasParams)
            expect([400, 401, 403, 404], `${mode} ${route.method} ${url} answered ${res.status}`).toContain(
              res.status,
            );
          if (url.endsWith('/rotate-api-key') && res.status === 200) bKey = res.body.apiKey;
        }
      }
    }
    expect(calls).toBeGreaterThan(tenantRoutes.length);

    // A is exactly as it was.
    const viaKey = await new Client(ctx.app).get('/v1/accounts', {
      headers: { authorization: `Bearer ${aKey}` },
    });
    expect(viaKey.status).toBe(200);
    expect(viaKey.body).toMatchObject({ name: canary, mailingAddress: `${canary} street` });
    const team = await a.client.get('/v1/team-members');
    expect(team.body.teamMembers.map((m: { id: number; name: string }) => [m.id, m.name])).toContainEqual([
      teammateId,
      canary,
    ]);
    const people = await a.client.get(`/v1/people/search?query=${canary}`);
    expect(people.body.users.map((p: { firstName: string; tags: string }) => [p.firstName, p.tags])).toEqual([
      [canary, canary],
    ]);
    const accounts = await a.client.get('/v1/team-members/accounts');
    expect(accounts.body.accounts.map((x: { id: number }) => x.id)).toContain(subId);
    // It walks every route twice: the suite's 30 s ran out once on a host with five times its cores' work queued.
  }, 120_000);

  it("search never reaches another account's people, though it runs with the owner's rights", async () => {
    const bAgain = new Client(ctx.app);
    await bAgain.post('/v1/accounts/login/', { email: b.email, password: b.password });
    expect((await bAgain.get(`/v1/people/search?query=${canary}`)).body.users).toEqual([]);
    expect((await a.client.get(`/v1/people/search?query=${canary}`)).body.users).toHaveLength(1);
    const outside = await ctx.services.db.transaction().execute(async (trx) => {
      await sql`select set_config('role', 'herald_app', true)`.execute(trx);
      return (await sql`select herald_search_people(${canary.toLowerCase()}, 10, 0)`.execute(trx)).rows;
    });
    expect(outside).toEqual([]);
  });

  it('a signed-in query that forgets its account filter still sees only its own account', async () => {
    const seen = await withAccount(ctx.services.db, b.account.accountId, async (db) => ({
      accounts: (await sql<{ id: number }>`select id from accounts`.execute(db)).rows.map((r) => r.id),
      members: (await sql<{ accountId: number }>`select account_id from team_members`.execute(db)).rows.map(
        (r) => r.accountId,
      ),
      issues: (await sql`select * from account_issues`.execute(db)).rows.length,
    }));
    expect(seen.accounts).toEqual([b.account.accountId]);
    expect(new Set(seen.members)).toEqual(new Set([b.account.accountId]));
    expect(seen.issues).toBe(0);
  });

  it('a signed-in transaction cannot write a row into another account', async () => {
    await expect(
      withAccount(ctx.services.db, b.account.accountId, (db) =>
        db
          .insertInto('accountIssues')
          .values({ accountId: a.account.accountId, kind: 'x', message: 'forged' })
          .execute(),
      ),
    ).rejects.toThrow(/row-level security/);
    await expect(
      withAccount(ctx.services.db, b.account.accountId, async (db) => {
        const res = await db
          .updateTable('accounts')
          .set({ name: 'hijacked' })
          .where('id', '=', a.account.accountId)
          .executeTakeFirst();
        return Number(res.numUpdatedRows);
      }),
    ).resolves.toBe(0);
  });
});
