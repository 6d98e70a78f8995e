import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/features/imports/imports.service.ts';
import { fillPeopleSearch } from '../src/features/people/people-search.jobs.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { uploadCsv } from './imports-support.ts';

// No job worker here: the test runs the import and the search fill itself, to see what lies between them.
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
});
afterAll(() => ctx.close());

const search = async (query: string) =>
  (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(query)}`)).body.users as {
    id: number;
    email: string;
    firstName: string | null;
  }[];
const entry = async (personId: number) =>
  (
    await sql<{
      search: string;
      xmin: string;
    }>`select search, xmin::text as xmin from people_search where account_id = ${owner.account.accountId} and person_id = ${personId}`.execute(
      ctx.services.db,
    )
  ).rows[0];

describe('people search entries', () => {
  it('follow a person created, renamed and deleted through the API, and ignore changes of anything else', async () => {
    const email = uniqueEmail('srch');
    const { body } = await owner.client.post('/v1/people/', { email, firstName: 'Quillon' });
    const id = body.user.id as number;
    expect((await entry(id))?.search).toBe(`${email.toLowerCase()} quillon `);
    expect((await search('quillon')).map((p) => p.id)).toEqual([id]);

    await owner.client.patch(`/v1/people/${id}`, { firstName: 'Marrowby', lastName: 'Vesk' });
    expect((await search('quillon')).map((p) => p.id)).toEqual([]);
    expect((await search('marrowby ves')).map((p) => p.id)).toEqual([id]);

    // A company and a tag are not searchable: the entry keeps its row version.
    const before = await entry(id);
    await owner.client.patch(`/v1/people/${id}`, { company: 'Engines Ltd' });
    await owner.client.post('/v1/tags/', { tag: 'vip', id });
    expect(await entry(id)).toEqual(before);

    expect((await owner.client.request('DELETE', `/v1/people?force=true&id=${id}`)).status).toBe(200);
    expect(await entry(id)).toBeUndefined();
  });

  it("leaves an import's people out of its merge, finds them by whole email at once, and by any part once the fill has run", async () => {
    const marker = `zv${Date.now().toString(36)}`;
    const existing = uniqueEmail(`${marker}old`);
    const old = (await owner.client.post('/v1/people/', { email: existing, firstName: 'Before' })).body.user
      .id as number;
    const fresh = `${marker}-new@example.com`;
    const key = await uploadCsv(
      ctx,
      owner,
      `E-mail,First Name\n${existing},Ottoline${marker}\n${fresh},Ferdinand${marker}\n`,
    );
    const { id } = await ctx.services.db
      .insertInto('imports')
      .values({
        accountId: owner.account.accountId,
        name: 'Search',
        fileKey: key,
        fieldMapping: JSON.stringify([
          { column: 'E-mail', field: 'email' },
          { column: 'First Name', field: 'firstName' },
        ]),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await runImport(ctx.services, owner.account.accountId, id);

    // The merge wrote no search entries: the renamed person keeps the old one, the new person has none yet.
    expect((await entry(old))?.search).toContain(' before ');
    const created = (await search(fresh))[0]!;
    expect(created).toMatchObject({ email: fresh, firstName: `Ferdinand${marker}` });
    expect(await entry(created.id)).toBeUndefined();
    expect(await search(`ferdinand${marker}`)).toEqual([]);
    // The import asked for the fill in the transaction that marked it done.
    const jobs = await sql<{
      n: number;
    }>`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'people-search-fill' and key = ${`people-search-fill:${owner.account.accountId}:${id}`}`.execute(
      ctx.services.db,
    );
    expect(jobs.rows[0]!.n).toBe(1);

    const { createdAt } = await ctx.services.db
      .selectFrom('imports')
      .select('createdAt')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(
      await fillPeopleSearch(ctx.services.pool, owner.account.accountId, createdAt.toISOString()),
    ).toBeGreaterThanOrEqual(2);
    expect((await search(`ferdinand${marker}`)).map((p) => p.id)).toEqual([created.id]);
    expect((await search(`ottoline${marker}`)).map((p) => p.id)).toEqual([old]);
    expect(await search('before')).not.toContainEqual(expect.objectContaining({ id: old }));
    // A second fill finds every entry right and writes none.
    expect(await fillPeopleSearch(ctx.services.pool, owner.account.accountId, createdAt.toISOString())).toBe(
      0,
    );
  });

  it('finds a whole email among other matches of its text, newest first, and never an archived person', async () => {
    const marker = `zw${Date.now().toString(36)}`;
    const a = (await owner.client.post('/v1/people/', { email: `${marker}@example.com` })).body.user
      .id as number;
    const b = (await owner.client.post('/v1/people/', { email: `x${marker}@example.com` })).body.user
      .id as number;
    expect((await search(`${marker}@example.com`)).map((p) => p.id)).toEqual([b, a]);
    // Archived as the bulk archive job does it (this context runs no jobs).
    await ctx.services.db
      .updateTable('people')
      .set({ archivedAt: new Date() })
      .where('accountId', '=', owner.account.accountId)
      .where('id', '=', a)
      .execute();
    expect((await search(`${marker}@example.com`)).map((p) => p.id)).toEqual([b]);
    expect((await search(`x${marker}@example.com`)).map((p) => p.id)).toEqual([b]);
  });
});
