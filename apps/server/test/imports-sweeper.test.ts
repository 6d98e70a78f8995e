import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importJobKey, lockImportRun } from '../src/features/imports/imports.jobs.ts';
import { runImport } from '../src/features/imports/imports.service.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';
import { uploadCsv, waitForImport } from './imports-support.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
});
afterAll(() => ctx.close());

async function startImport(rows: number) {
  const lines = ['E-mail', ...Array.from({ length: rows }, (_, i) => `swept-${i}-${Date.now()}@example.com`)];
  const key = await uploadCsv(ctx, owner, lines.join('\n'));
  const created = await owner.client.post('/v1/imports', {
    peopleFileKey: key,
    fieldMapping: [{ column: 'E-mail', field: 'email' }],
  });
  expect(created.status).toBe(201);
  return created.body.id as number;
}

describe('imports: a worker that dies mid-import', () => {
  it('runs an import in one job at a time: a job that finds its run lock held leaves the import alone', async () => {
    const id = await startImport(2);
    const accountId = owner.account.accountId as number;
    // Another live job holds the import (the test takes its lock first; no worker runs yet); this one returns without
    // touching it.
    const release = (await lockImportRun(ctx.services.pool, id))!;
    expect(release).toBeTypeOf('function');
    await runImport(ctx.services, accountId, id);
    const row = await ctx.services.db
      .selectFrom('imports')
      .select(['status', 'parsedRows'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'queued', parsedRows: 0 });
    expect(await lockImportRun(ctx.services.pool, id)).toBeNull();
    await release();
    await runImport(ctx.services, accountId, id);
    expect(await waitForImport(owner, id, 10_000)).toMatchObject({ status: 'done', counts: { created: 2 } });
  });

  it('gives an import whose job a dead worker holds a fresh job, which imports it (issue 22: a killed import stayed locked for hours)', async () => {
    const accountId = owner.account.accountId as number;
    const id = await startImport(3);
    // The job as a worker killed with SIGKILL leaves it: locked, by a worker that no longer runs.
    const locked =
      await sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'worker-killed-mid-import'
      where key = ${importJobKey(accountId, id)}`.execute(ctx.services.db);
    expect(Number(locked.numAffectedRows)).toBe(1);
    await ctx.startWorker();
    const done = await waitForImport(owner, id, 30_000);
    expect(done).toMatchObject({ status: 'done', counts: { created: 3 } });
  });
});
