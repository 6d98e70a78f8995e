import { importMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { Readable, Transform } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { csvReaderMessages } from '../src/features/imports/csv-reader.ts';
import { importBatching } from '../src/features/imports/import-merge-sql.ts';
import { runImport } from '../src/features/imports/imports.service.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { uploadCsv, waitForImport } from './imports-support.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  ctx = await createTestContext();
  await ctx.startWorker();
  owner = await registerUser(ctx.app);
});
afterAll(() => ctx.close());
const defaultBatchRows = importBatching.rows;
afterEach(() => {
  importBatching.rows = defaultBatchRows;
});

const upload = (content: Buffer | string) => uploadCsv(ctx, owner, content);
const waitFinished = (id: number) => waitForImport(owner, id);

const fm = [
  { column: 'Email', field: 'email' },
  { column: 'Name', field: 'firstName' },
];
const start = async (key: string, body: Record<string, unknown> = {}) =>
  (await owner.client.post('/v1/imports', { peopleFileKey: key, fieldMapping: fm, ...body })).body
    .id as number;
const failures = async (id: number) =>
  String((await owner.client.get(`/v1/imports/${id}/failures`)).body)
    .trim()
    .split('\r\n')
    .slice(1);
const personCount = async (domain: string) =>
  Number(
    (
      await sql<{
        n: string;
      }>`select count(*) as n from people where account_id = ${owner.account.accountId} and email like ${`%@${domain}`}`.execute(
        ctx.services.db,
      )
    ).rows[0]!.n,
  );

describe('imports: bad input', () => {
  it('fails an empty file and an unknown strategy with a clear message', async () => {
    const { body } = await owner.client.post('/v1/imports/upload-url');
    const url = new URL(body.url);
    const empty = await ctx.app.inject({
      method: 'PUT',
      url: url.pathname + url.search,
      headers: { 'content-type': 'text/csv' },
      payload: Buffer.alloc(0),
    });
    expect(empty.json()).toMatchObject({ statusCode: 400, message: 'The file is empty.' });
    // A file of blank lines is as empty as it gets once stored.
    expect(await waitFinished(await start(await upload('\r\n\n\n')))).toMatchObject({
      status: 'failed',
      error: importMessages.noPeople,
    });
    const refused = await owner.client.post('/v1/imports', {
      peopleFileKey: await upload('Email\na@example.com\n'),
      fieldMapping: fm,
      existingPeopleStrategy: 'overwrite',
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(
      "Choose 'update' or 'ignore' for people who already exist.",
    );
  });

  it('imports the good rows among 10,000 malformed ones and reports each bad row by number', async () => {
    const domain = `good${Date.now().toString(36)}.example`;
    const lines = ['Email,Name'];
    for (let i = 0; i < 20_000; i += 1)
      lines.push(i % 2 === 0 ? `p${i}@${domain},P${i}` : `not an email ${i},X`);
    const id = await start(await upload(lines.join('\n')));
    expect(await waitFinished(id)).toMatchObject({
      status: 'done',
      totalRows: 20_000,
      counts: { created: 10_000, failed: 10_000 },
    });
    expect(await personCount(domain)).toBe(10_000);
    const rows = await failures(id);
    expect(rows).toHaveLength(10_000);
    expect(rows[0]).toBe('2,"""not an email 1"" is not a valid email address."');
    expect(rows.at(-1)).toMatch(/^20000,/);
  });

  it('fails a row of 1 MB and a row of broken CSV, and imports the rows around them', async () => {
    const domain = `big${Date.now().toString(36)}.example`;
    const csv = [
      'Email,Name',
      `a@${domain},Ann`,
      `b@${domain},${'x'.repeat(1024 * 1024)}`,
      `c@${domain},"Cy"d`,
      `d@${domain},Dee`,
      `e@${domain},"never closed`,
      `f@${domain},Eff`,
    ].join('\n');
    const id = await start(await upload(csv));
    expect(await waitFinished(id)).toMatchObject({
      status: 'done',
      totalRows: 5,
      counts: { created: 2, failed: 3 },
    });
    expect(await personCount(domain)).toBe(2);
    expect(await failures(id)).toEqual([
      '2,A value is longer than 5000 characters.',
      `3,This row is not valid CSV: ${csvReaderMessages.textAfterQuote}`,
      `5,This row is not valid CSV: ${csvReaderMessages.unclosedQuote}`,
    ]);
  });

  it('counts people whose values are all there already as skipped and leaves them untouched', async () => {
    const email = uniqueEmail('same');
    const key = await upload(`Email,Name\n${email},Sam\n`);
    expect((await waitFinished(await start(key, { tags: ['t1'] }))).counts).toMatchObject({
      created: 1,
      updated: 0,
      skipped: 0,
    });
    const before = await ctx.services.db
      .selectFrom('people')
      .select(['updatedAt'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect((await waitFinished(await start(key, { tags: ['t1'] }))).counts).toMatchObject({
      created: 0,
      updated: 0,
      skipped: 1,
    });
    const after = await ctx.services.db
      .selectFrom('people')
      .select(['updatedAt', 'tags'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(after.updatedAt).toEqual(before.updatedAt);
    // A new tag is a change.
    expect((await waitFinished(await start(key, { tags: ['t2'] }))).counts).toMatchObject({
      created: 0,
      updated: 1,
      skipped: 0,
    });
    expect(
      (
        await ctx.services.db
          .selectFrom('people')
          .select('tags')
          .where('email', '=', email)
          .executeTakeFirstOrThrow()
      ).tags.sort(),
    ).toEqual(['t1', 't2']);
  });

  it('parses again when the unlogged staging rows were lost (a PostgreSQL crash), with no row lost or doubled', async () => {
    // Batches of 10,000 rows, so a tenth of the rows still crosses one (import-1m in bench/ runs the full size).
    importBatching.rows = 10_000;
    const rows = 15_000;
    const domain = `lost${Date.now().toString(36)}.example`;
    const lines = ['Email,Name'];
    for (let i = 0; i < rows; i += 1) lines.push(i % 1000 === 999 ? `broken ${i},X` : `r${i}@${domain},R`);
    const key = await upload(lines.join('\n'));
    const { id } = await ctx.services.db
      .insertInto('imports')
      .values({
        accountId: owner.account.accountId,
        name: 'Lost',
        fileKey: key,
        fieldMapping: JSON.stringify(fm),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const crashingStorage = {
      ...ctx.services.storage,
      readStream: async (k: string) => {
        const stream = await ctx.services.storage.readStream(k);
        let seen = 0;
        return stream?.pipe(
          new Transform({
            transform(chunk: Buffer, _e, cb) {
              seen += chunk.length;
              cb(seen > 400_000 ? new Error('worker killed') : null, chunk);
            },
          }),
        ) as Readable | undefined;
      },
    };
    await expect(
      runImport({ ...ctx.services, storage: crashingStorage }, owner.account.accountId, id),
    ).rejects.toThrow('worker killed');
    expect(
      await ctx.services.db
        .selectFrom('imports')
        .select(['parsedRows', 'failed'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ parsedRows: 10_000, failed: 10 });
    // The import stages into a table of its own, unlogged: what a crash does to it is empty it.
    const staging = sql.raw(`import_staging.import_${id}`);
    const persistence = await sql<{
      relpersistence: string;
    }>`select relpersistence from pg_class where oid = to_regclass(${`import_staging.import_${id}`})`.execute(
      ctx.services.db,
    );
    expect(persistence.rows[0]!.relpersistence).toBe('u');
    await sql`truncate ${staging}`.execute(ctx.services.db);
    await runImport(ctx.services, owner.account.accountId, id);
    const final = (await owner.client.get(`/v1/imports/${id}`)).body;
    expect(final).toMatchObject({
      status: 'done',
      totalRows: rows,
      counts: { created: rows - 15, failed: 15, duplicates: 0 },
    });
    expect(await personCount(domain)).toBe(rows - 15);
    expect(await failures(id)).toHaveLength(15);
    // Once done, its staging table is gone.
    const left = await sql<{
      table: string | null;
    }>`select to_regclass(${`import_staging.import_${id}`})::text as table`.execute(ctx.services.db);
    expect(left.rows[0]!.table).toBeNull();
  }, 120_000);
});
