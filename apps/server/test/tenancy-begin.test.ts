import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount, withAccountClient } from '../src/db/tenancy.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';

// An account's transaction opens with its settings in the begin's own round trip (db/connection.ts, pendingAccount).
let ctx: TestContext;
let accountId: number;
beforeAll(async () => {
  ctx = await createTestContext();
  accountId = (await registerUser(ctx.app)).account.accountId;
});
afterAll(() => ctx.close());

const settings = (db: Parameters<Parameters<typeof withAccount>[2]>[0]) =>
  sql<{
    account: string;
    role: string;
    inTransaction: boolean;
  }>`select current_setting('herald.account_id', true) as account,
    current_user as role, now() = statement_timestamp() as "inTransaction"`
    .execute(db)
    .then((r) => r.rows[0]!);

describe('a transaction for an account', () => {
  it('runs as herald_app for that account, inside one transaction', async () => {
    const seen = await withAccount(ctx.services.db, accountId, async (db) => {
      await sql`select pg_sleep(0.01)`.execute(db);
      return settings(db);
    });
    // now() is the transaction's start, so after a pause it differs from the statement's time inside one.
    expect(seen).toEqual({ account: String(accountId), role: 'herald_app', inTransaction: false });
  });

  it('lets a transaction the work opens on another connection begin as the owner', async () => {
    const inner = await withAccount(ctx.services.db, accountId, () =>
      ctx.services.db.transaction().execute((other) => settings(other)),
    );
    expect(inner.role).not.toBe('herald_app');
    expect(inner.account ?? '').toBe('');
  });

  it('rolls back what the work wrote when it fails', async () => {
    const tag = `rollback-${Date.now()}`;
    await expect(
      withAccount(ctx.services.db, accountId, async (db) => {
        await db.insertInto('tags').values({ accountId, tag }).execute();
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from tags where tag = ${tag}`.execute(
      ctx.services.db,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('gives a pooled client the account, the role and commits that do not wait for the disk', async () => {
    const seen = await withAccountClient(ctx.services.pool, accountId, async (client) => {
      const { rows } = await client.query<{ account: string; role: string; sync: string }>(
        `select current_setting('herald.account_id', true) as account, current_user as role,
          current_setting('synchronous_commit') as sync`,
      );
      return rows[0]!;
    });
    expect(seen).toEqual({ account: String(accountId), role: 'herald_app', sync: 'off' });
  });
});
