import type { TestContext } from './helpers.ts';

/** Every row of an account in each of `tables`, by id: what a test compares to show a refused call changed nothing. */
export async function accountRows<T extends string>(
  ctx: TestContext,
  accountId: number,
  tables: Record<T, string>,
): Promise<Record<T, unknown[]>> {
  const out = {} as Record<T, unknown[]>;
  for (const [key, table] of Object.entries(tables) as [T, string][]) {
    out[key] = (
      await ctx.services.pool.query(`select * from ${table} where account_id = $1 order by id`, [accountId])
    ).rows;
  }
  return out;
}
