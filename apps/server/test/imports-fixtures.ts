import { afterAll, beforeAll } from 'vitest';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';

/**
 * What the import tests share: a server with a worker and an account that imports. A test file calls
 * useImportsContext() once: its own beforeAll builds the server and registers the account, its afterAll closes the
 * server; `ctx` and `owner`, read live by the importers, name the current file's.
 */
export let ctx: TestContext;
export let owner: Awaited<ReturnType<typeof registerUser>>;

export function useImportsContext(): void {
  beforeAll(async () => {
    ctx = await createTestContext();
    await ctx.startWorker();
    owner = await registerUser(ctx.app);
  });
  afterAll(() => ctx.close());
}
