import { sql } from 'kysely';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consentPartBatch } from '../src/features/imports/import-consent.ts';
import { importBatching } from '../src/features/imports/import-merge-sql.ts';
import { runImport } from '../src/features/imports/imports.service.ts';
import { ensureStagingTable } from '../src/features/imports/staging-table.ts';
import { registerUser } from './helpers.ts';
import { ctx, owner, useImportsContext } from './imports-fixtures.ts';
import { uploadCsv } from './imports-support.ts';
import { until } from './until.ts';

useImportsContext();

// Batches of 10,000 rows instead of 100,000: each test still crosses several of them, in a tenth of the rows (the
// file took 70 s of the server suite at full size). import-1m in bench/ runs the full size.
const defaultRows = importBatching.rows;
beforeAll(() => {
  importBatching.rows = 10_000;
});
afterAll(() => {
  importBatching.rows = defaultRows;
});

/**
 * An import of `rows` new people (`marker-<i>@example.com`), then the rows `i` of `repeats` once more,
 * recorded directly (no job), so only the test's own runs work on it; `people()` counts the people it
 * has made so far.
 */
async function importWithoutJob(name: string, rows: number, repeats: number[] = [], user = owner) {
  const marker = `${name.toLowerCase().replace(/[^a-z]/g, '')}${Date.now().toString(36)}`;
  const lines = ['E-mail'];
  for (let i = 0; i < rows; i += 1) lines.push(`${marker}-${i}@example.com`);
  for (const i of repeats) lines.push(`${marker}-${i}@example.com`);
  const key = await uploadCsv(ctx, user, lines.join('\n'));
  const { id } = await ctx.services.db
    .insertInto('imports')
    .values({
      accountId: user.account.accountId,
      name,
      fileKey: key,
      fieldMapping: JSON.stringify([{ column: 'E-mail', field: 'email' }]),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const people = async () =>
    Number(
      (
        await ctx.services.db
          .selectFrom('people')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('accountId', '=', user.account.accountId)
          .where('email', 'like', `${marker}-%`)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { id, people };
}

/** Run `work` while a trigger on `table` raises `message` for rows matching `when` (plpgsql, on `new`). */
async function whileFailing(table: string, when: string, message: string, work: () => Promise<void>) {
  const name = `fail_${table}_${Date.now().toString(36)}`;
  await sql
    .raw(
      `create function ${name}() returns trigger language plpgsql as $$ begin
      if ${when} then raise exception '${message}'; end if; return new; end $$;
    create trigger ${name} before insert or update on ${table} for each row execute function ${name}()`,
    )
    .execute(ctx.services.db);
  try {
    await work();
  } finally {
    await sql.raw(`drop trigger ${name} on ${table}; drop function ${name}()`).execute(ctx.services.db);
  }
}

describe('imports', () => {
  it('resumes after a crash mid-file with no row lost or doubled, and finds an email repeated across the restart', async () => {
    const rows = 25_000;
    // One email of the chunk staged before the crash comes again at the end: the resumed parse cannot
    // have seen the first, and the duplicate pass still finds it.
    const { id, people } = await importWithoutJob('Resume', rows, [7]);
    const crashingStorage = {
      ...ctx.services.storage,
      readStream: async (k: string) => {
        const stream = await ctx.services.storage.readStream(k);
        let seen = 0;
        return stream?.pipe(
          new (await import('node:stream')).Transform({
            transform(chunk: Buffer, _e, cb) {
              seen += chunk.length;
              cb(seen > 450_000 ? new Error('worker killed') : null, chunk);
            },
          }),
        ) as Readable | undefined;
      },
    };
    await expect(
      runImport({ ...ctx.services, storage: crashingStorage }, owner.account.accountId, id),
    ).rejects.toThrow('worker killed');
    const mid = await ctx.services.db
      .selectFrom('imports')
      .select(['status', 'parsedRows'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(mid).toEqual({ status: 'parsing', parsedRows: 10_000 });
    await runImport(ctx.services, owner.account.accountId, id);
    const final = (await owner.client.get(`/v1/imports/${id}`)).body;
    expect(final).toMatchObject({
      status: 'done',
      totalRows: rows + 1,
      counts: { created: rows, updated: 0, failed: 0, duplicates: 1 },
    });
    expect(await people()).toBe(rows);
  }, 120_000);

  it('gives back every connection when a staged chunk fails to commit while the next one is read', async () => {
    const { id } = await importWithoutJob('Commit fails', 25_000);
    // The first chunk's commit fails (its parse mark cannot be written) while the second chunk is being read.
    await whileFailing('imports', `new.id = ${id} and new.parsed_rows = 10000`, 'disk full', async () => {
      await expect(runImport(ctx.services, owner.account.accountId, id)).rejects.toThrow('disk full');
    });
    // No connection is left in the middle of a staging COPY.
    const copying = async () =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and state <> 'idle' and query like 'copy import_staging.%'`.execute(
          ctx.services.db,
        )
      ).rows[0]!.n;
    await until(async () => (await copying()) === 0, {
      timeout: 5_000,
      message: 'no connection left in a staging COPY',
    });
    const mid = await ctx.services.db
      .selectFrom('imports')
      .select(['parsedRows'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(mid.parsedRows).toBe(0);
  }, 120_000);

  it('resumes after a batch fails mid-merge: every batch, merged on two connections, is merged once', async () => {
    const rows = 35_000;
    const { id, people } = await importWithoutJob('Merge resume', rows);
    // The third batch (rows 20,001-30,000) fails as a killed connection would.
    await whileFailing(
      'import_merged_batches',
      `new.import_id = ${id} and new.batch_no = 2`,
      'connection lost',
      async () => {
        await expect(runImport(ctx.services, owner.account.accountId, id)).rejects.toThrow('connection lost');
      },
    );
    const mid = await ctx.services.db
      .selectFrom('imports')
      .select(['status', 'mergedRows', 'created'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(mid.status).toBe('importing');
    expect(mid.mergedRows).toBeGreaterThanOrEqual(10_000);
    expect(mid.mergedRows).toBeLessThan(rows);
    expect({ created: mid.created, people: await people() }).toEqual({
      created: mid.mergedRows,
      people: mid.mergedRows,
    });

    await runImport(ctx.services, owner.account.accountId, id);
    const final = (await owner.client.get(`/v1/imports/${id}`)).body;
    expect(final).toMatchObject({
      status: 'done',
      progress: 1,
      totalRows: rows,
      counts: { created: rows, updated: 0, skipped: 0, failed: 0, duplicates: 0 },
    });
    expect(await people()).toBe(rows);
  }, 180_000);

  it('writes the consent records in parts that each commit once: a part that fails is written by the next run, none twice', async () => {
    const rows = 3_000;
    const { id } = await importWithoutJob('Consent parts', rows);
    const records = async () =>
      (
        await sql<{ records: number; people: number; second: number }>`select count(*)::int as records,
          count(distinct person_id)::int as people, count(*) filter (where person_id % 2 = 1)::int as second
          from consent_records where account_id = ${owner.account.accountId} and source = 'import'
            and details->>'importId' = ${String(id)}`.execute(ctx.services.db)
      ).rows[0]!;
    // The second part (people with an odd id) fails as it commits; the first commits beside it.
    await whileFailing(
      'import_merged_batches',
      `new.import_id = ${id} and new.batch_no = ${consentPartBatch(1)}`,
      'connection lost',
      async () => {
        await expect(runImport(ctx.services, owner.account.accountId, id)).rejects.toThrow('connection lost');
      },
    );
    const mid = await records();
    expect(mid.second).toBe(0);
    expect(mid.records).toBeGreaterThan(rows / 4);
    expect(mid.records).toBe(mid.people);
    expect((await owner.client.get(`/v1/imports/${id}`)).body).toMatchObject({ status: 'importing' });

    await runImport(ctx.services, owner.account.accountId, id);
    expect((await owner.client.get(`/v1/imports/${id}`)).body).toMatchObject({ status: 'done' });
    const final = await records();
    expect(final).toEqual({ records: rows, people: rows, second: final.second });
    expect(final.second).toBe(rows - mid.records);
  }, 120_000);

  it("drops an import's staging table when it ends, and one a stopped job left behind when the next import starts", async () => {
    const staged = async (importId: number) =>
      (
        await sql<{
          table: string | null;
        }>`select to_regclass(${`import_staging.import_${importId}`})::text as table`.execute(ctx.services.db)
      ).rows[0]!.table !== null;
    // The large imports above leave the worker refreshing the owner's segments and filling search entries, on the
    // pool this test's imports use too: an account of its own keeps the import from waiting for those refreshes
    // (as an import does), and the time limit is the large tests' own, since a busy pool still slows each step.
    const user = await registerUser(ctx.app);
    const done = await importWithoutJob('Staging done', 10, [], user);
    await runImport(ctx.services, user.account.accountId, done.id);
    expect(await staged(done.id)).toBe(false);
    // A job stopped after marking its import done and before dropping the table leaves it behind.
    await ensureStagingTable(ctx.services.pool, done.id);
    expect(await staged(done.id)).toBe(true);

    // An import that fails drops its own table, and the sweep as it started dropped the one left behind.
    const key = await uploadCsv(ctx, user, 'Name\nAnn');
    const { id: failing } = await ctx.services.db
      .insertInto('imports')
      .values({
        accountId: user.account.accountId,
        name: 'No email',
        fileKey: key,
        fieldMapping: JSON.stringify([{ column: 'E-mail', field: 'email' }]),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await runImport(ctx.services, user.account.accountId, failing);
    expect((await user.client.get(`/v1/imports/${failing}`)).body).toMatchObject({ status: 'failed' });
    expect({ done: await staged(done.id), failing: await staged(failing) }).toEqual({
      done: false,
      failing: false,
    });
  }, 120_000);
});
