import { sql } from 'kysely';
import pg from 'pg';
import { expect } from 'vitest';
import type { registerUser, TestContext } from './helpers.ts';
import { testDatabaseUrl } from './helpers.ts';

/**
 * What the people-search tests ask of an account: a page of the search through the API, the same page by a plain
 * scan of the account's people (newest first), and the ways the search function took for a term (its debug
 * messages, sent to a client that asks for them).
 */
export function searchChecks(ctx: TestContext, owner: Awaited<ReturnType<typeof registerUser>>) {
  const accountId = owner.account.accountId;
  const page = async (query: string, n: number) => {
    const res = await owner.client.get(`/v1/people/search?query=${encodeURIComponent(query)}&page=${n}`);
    expect(res.status).toBe(200);
    return (res.body.users as { id: number }[]).map((u) => u.id);
  };
  const scan = async (query: string, n: number) =>
    (
      await sql<{ id: string }>`select p.id from people p
        where p.account_id = ${accountId} and p.archived_at is null
          and lower(coalesce(p.email, '') || ' ' || coalesce(p.first_name, '') || ' ' || coalesce(p.last_name, ''))
            like ${`%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`}
        order by p.id desc limit 100 offset ${n * 100}`.execute(ctx.services.db)
    ).rows.map((r) => Number(r.id));
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
  return { page, scan, ways };
}
