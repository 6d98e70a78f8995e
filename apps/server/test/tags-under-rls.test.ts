import { segmentFilter } from '@herald/segments';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';

// tag-containment.ts, run at every start: a tag condition reads the tags index under row-level security, as it does on the owner's
// connection, instead of every person of the account (docs/security.md, "Tag conditions under row-level security").
let ctx: TestContext;
let accountId: number;
let other: number;
beforeAll(async () => {
  ctx = await createTestContext();
  accountId = (await registerUser(ctx.app)).account.accountId;
  other = (await registerUser(ctx.app)).account.accountId;
  // 20,000 people; one in a thousand has the tag. Another account's people have it too and must not be counted.
  for (const account of [accountId, other])
    await sql`insert into people (account_id, email, tags)
      select ${account}, 'rls-' || ${account} || '-' || g || '@example.com',
        case when g % 1000 = 0 then array['rare', 'customer'] else array['customer'] end
      from generate_series(1, 20000) g`.execute(ctx.services.db);
  await sql`analyze people`.execute(ctx.services.db);
});
afterAll(() => ctx.close());

const filter = (account: number) =>
  segmentFilter([{ type: 'tag', operator: 'has', tag: 'rare' }], {
    accountId: account,
    now: new Date(),
    fieldTypes: new Map(),
    segments: new Map(),
  });

/** How many people a filter counts in this account's transaction (as `herald_app`). */
const countInAccount = (where: ReturnType<typeof filter>) =>
  withAccount(ctx.services.db, accountId, async (db) => {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from people p where ${where}`.execute(
      db,
    );
    return rows[0]!.n;
  });

describe('tag conditions under row-level security', () => {
  it("use the tags index and count the account's own people only", async () => {
    const plan = await withAccount(ctx.services.db, accountId, async (db) => {
      // With scans of the whole table priced out, the plan shows whether the index can answer at all.
      await sql`set local enable_seqscan = off`.execute(db);
      const { rows } = await sql<{
        'QUERY PLAN': unknown;
      }>`explain (format json) select count(*) from people p where ${filter(accountId)}`.execute(db);
      return JSON.stringify(rows[0]!['QUERY PLAN']);
    });
    expect(plan).toContain('people_tags_idx');
    expect(plan).not.toContain('Seq Scan');

    expect(await countInAccount(filter(accountId))).toBe(20);
    // The other account's filter, run in this account's transaction, finds nobody: the policy still holds.
    const leaked = await countInAccount(filter(other));
    expect(leaked).toBe(0);
  });
});
