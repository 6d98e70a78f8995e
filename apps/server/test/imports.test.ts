import { importMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/features/imports/imports.service.ts';
import { ensureStagingTable } from '../src/features/imports/staging-table.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { uploadCsv, waitForImport } from './imports-support.ts';
import { until } from './until.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  ctx = await createTestContext();
  await ctx.startWorker();
  owner = await registerUser(ctx.app);
});
afterAll(() => ctx.close());

const upload = (content: Buffer | string) => uploadCsv(ctx, owner, content);
const waitFinished = (id: number) => waitForImport(owner, id);

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
    .values({ accountId: user.account.accountId, name, fileKey: key, fieldMapping: JSON.stringify([{ column: 'E-mail', field: 'email' }]) })
    .returning('id')
    .executeTakeFirstOrThrow();
  const people = async () =>
    Number((await ctx.services.db.selectFrom('people').select((eb) => eb.fn.countAll<number>().as('n')).where('accountId', '=', user.account.accountId).where('email', 'like', `${marker}-%`).executeTakeFirstOrThrow()).n);
  return { id, people };
}

/** Run `work` while a trigger on `table` raises `message` for rows matching `when` (plpgsql, on `new`). */
async function whileFailing(table: string, when: string, message: string, work: () => Promise<void>) {
  const name = `fail_${table}_${Date.now().toString(36)}`;
  await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin
      if ${when} then raise exception '${message}'; end if; return new; end $$;
    create trigger ${name} before insert or update on ${table} for each row execute function ${name}()`).execute(ctx.services.db);
  try {
    await work();
  } finally {
    await sql.raw(`drop trigger ${name} on ${table}; drop function ${name}()`).execute(ctx.services.db);
  }
}

const mapping = [
  { column: 'E-mail', field: 'email' },
  { column: 'First Name', field: 'firstName' },
  { column: 'Plan', field: 'plan', newField: { title: 'Plan', type: 'string' as const } },
  { column: 'Tags', field: 'tags' },
  { column: 'Notes', field: null },
];

describe('imports', () => {
  it('imports a CSV: creates fields, applies tags, reports failed rows exactly, applies repeated emails in file order', async () => {
    const a = uniqueEmail('imp');
    const b = uniqueEmail('imp');
    const csv = [
      'E-mail,First Name,Plan,Tags,Notes',
      `${a},Ann,free,"lead, webinar",x`,
      `${b},"Bob ""the builder""",pro,,"multi`,
      `line note"`,
      'not-an-email,Nobody,free,,',
      `${a.toUpperCase()},Annie,pro,,`,
      `,Empty,free,,`,
    ].join('\r\n');
    const key = await upload(csv);
    const created = await owner.client.post('/v1/imports', { name: 'Webinar', peopleFileKey: key, numPeople: 5, fieldMapping: mapping, tags: ['imported'] });
    expect(created.status).toBe(201);
    const done = await waitFinished(created.body.id);
    expect(done).toMatchObject({ status: 'done', totalRows: 5, progress: 1, counts: { created: 2, updated: 0, skipped: 0, failed: 2, duplicates: 1 } });

    const ann = (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(a)}`)).body.users[0];
    expect(ann).toMatchObject({ firstName: 'Annie', plan: 'pro' });
    // Rows of one email apply in file order: the later values win, the tags of both rows add up.
    expect(ann.tags.split(', ').sort()).toEqual(['imported', 'lead', 'webinar']);
    const bob = (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(b)}`)).body.users[0];
    expect(bob).toMatchObject({ firstName: 'Bob "the builder"', plan: 'pro' });
    expect((await owner.client.get('/v1/fields')).body.items.map((f: { name: string }) => f.name)).toContain('plan');
    // The file's tags and the picked ones are in the account's tag list.
    expect((await owner.client.get('/v1/tags-management')).body.tags.map((t: { tag: string }) => t.tag)).toEqual(expect.arrayContaining(['imported', 'lead', 'webinar']));

    const failures = await owner.client.get(`/v1/imports/${created.body.id}/failures`);
    expect(failures.headers['content-type']).toContain('text/csv');
    expect(String(failures.body)).toBe('row,reason\r\n3,"""not-an-email"" is not a valid email address."\r\n5,The email is missing.\r\n');
    expect((await owner.client.get('/v1/imports')).body.imports[0].id).toBe(created.body.id);
  });

  it("keeps existing people as they are with 'ignore', and fills them with 'update'", async () => {
    const email = uniqueEmail('existing');
    await owner.client.post('/v1/people/', { email, firstName: 'Original' });
    const key = await upload(`E-mail,First Name\n${email},Changed\n${uniqueEmail()},New\n`);
    const fm = [{ column: 'E-mail', field: 'email' }, { column: 'First Name', field: 'firstName' }];
    const ignored = await waitFinished((await owner.client.post('/v1/imports', { peopleFileKey: key, fieldMapping: fm, existingPeopleStrategy: 'ignore' })).body.id);
    expect(ignored.counts).toMatchObject({ created: 1, updated: 0, skipped: 1 });
    expect((await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`)).body.users[0].firstName).toBe('Original');
    const updated = await waitFinished((await owner.client.post('/v1/imports', { peopleFileKey: key, fieldMapping: fm })).body.id);
    // The person the first import created already has these values: unchanged, so skipped rather than updated.
    expect(updated.counts).toMatchObject({ created: 0, updated: 1, skipped: 1 });
    expect((await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`)).body.users[0].firstName).toBe('Changed');
  });

  it('reads semicolons, tabs, a BOM and Latin-1', async () => {
    const e1 = uniqueEmail('semi');
    const e2 = uniqueEmail('latin');
    const semi = await upload(`\uFEFFE-mail;First Name\n${e1};Zoë\n`);
    const latin = await upload(Buffer.from(`E-mail\tFirst Name\n${e2}\tJosé\n`, 'latin1'));
    const fm = [{ column: 'E-mail', field: 'email' }, { column: 'First Name', field: 'firstName' }];
    for (const key of [semi, latin]) expect((await waitFinished((await owner.client.post('/v1/imports', { peopleFileKey: key, fieldMapping: fm })).body.id)).counts.created).toBe(1);
    expect((await owner.client.get(`/v1/people/search?query=${encodeURIComponent(e1)}`)).body.users[0].firstName).toBe('Zoë');
    expect((await owner.client.get(`/v1/people/search?query=${encodeURIComponent(e2)}`)).body.users[0].firstName).toBe('José');
  });

  it('refuses bad requests with the spec messages and fails bad files clearly', async () => {
    const key = await upload('E-mail\nx@example.com\n');
    expect((await owner.client.post('/v1/imports', { peopleFileKey: key })).body.message).toBe(importMessages.noMapping);
    expect((await owner.client.post('/v1/imports', { peopleFileKey: key, fieldMapping: [{ column: 'E-mail', field: 'firstName' }] })).body.message).toBe(importMessages.noEmailColumn);
    expect((await owner.client.post('/v1/imports', { peopleFileKey: key, numPeople: 0, fieldMapping: mapping })).body.message).toBe(importMessages.noPeople);
    expect((await owner.client.post('/v1/imports', { peopleFileKey: key, fieldMapping: mapping, existingPeopleStrategy: 'merge' })).status).toBe(400);
    expect((await owner.client.post('/v1/imports', { peopleFileKey: 'imports/1/other-account.csv', fieldMapping: mapping })).body.message).toBe(importMessages.fileMissing);
    expect((await owner.client.post('/v1/imports', { peopleFileKey: key, fieldMapping: [{ column: 'E-mail', field: 'email' }, { column: 'X', field: 'nope' }] })).status).toBe(400);
    const fm = [{ column: 'E-mail', field: 'email' }];
    for (const [content, message] of [
      ['E-mail\n', importMessages.noPeople],
      [Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00, 0x10]), 'This file is not a CSV text file.'],
      ['Name\nAda\n', 'No column of the file matches the column mapped to Email.'],
    ] as const) {
      const bad = await upload(content);
      const res = await waitFinished((await owner.client.post('/v1/imports', { peopleFileKey: bad, fieldMapping: fm })).body.id);
      expect(res).toMatchObject({ status: 'failed', error: message });
    }
  });

  it('puts imported people in the segments they match once the import is done', async () => {
    const segment = (await owner.client.post('/v1/segments/', { name: 'Imported VIPs', conditions: [{ type: 'tag', operator: 'has', tag: 'import-vip' }] })).body.segment as { id: number };
    const domain = `seg${Date.now().toString(36)}.example`;
    const lines = ['E-mail'];
    for (let i = 0; i < 12_000; i += 1) lines.push(`s${i}@${domain}`);
    const key = await upload(lines.join('\n'));
    const done = await waitFinished((await owner.client.post('/v1/imports', { peopleFileKey: key, fieldMapping: [{ column: 'E-mail', field: 'email' }], tags: ['import-vip'] })).body.id);
    expect(done.counts).toMatchObject({ created: 12_000 });
    const members = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from segment_members where account_id = ${owner.account.accountId} and segment_id = ${segment.id}`.execute(ctx.services.db)).rows[0]!.n);
    await until(async () => (await members()) === 12_000, { timeout: 30_000, message: async () => `the segment has ${await members()} of 12000 imported people` });
  }, 60_000);

  it('resumes after a crash mid-file with no row lost or doubled, and finds an email repeated across the restart', async () => {
    const rows = 250_000;
    // One email of the chunk staged before the crash comes again at the end: the resumed parse cannot
    // have seen the first, and the duplicate pass still finds it.
    const { id, people } = await importWithoutJob('Resume', rows, [7]);
    const crashingStorage = { ...ctx.services.storage, readStream: async (k: string) => {
      const stream = await ctx.services.storage.readStream(k);
      let seen = 0;
      return stream?.pipe(new (await import('node:stream')).Transform({ transform(chunk: Buffer, _e, cb) { seen += chunk.length; cb(seen > 4_500_000 ? new Error('worker killed') : null, chunk); } })) as Readable | undefined;
    } };
    await expect(runImport({ ...ctx.services, storage: crashingStorage }, owner.account.accountId, id)).rejects.toThrow('worker killed');
    const mid = await ctx.services.db.selectFrom('imports').select(['status', 'parsedRows']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(mid).toEqual({ status: 'parsing', parsedRows: 100_000 });
    await runImport(ctx.services, owner.account.accountId, id);
    const final = (await owner.client.get(`/v1/imports/${id}`)).body;
    expect(final).toMatchObject({ status: 'done', totalRows: rows + 1, counts: { created: rows, updated: 0, failed: 0, duplicates: 1 } });
    expect(await people()).toBe(rows);
  }, 120_000);

  it('gives back every connection when a staged chunk fails to commit while the next one is read', async () => {
    const { id } = await importWithoutJob('Commit fails', 250_000);
    // The first chunk's commit fails (its parse mark cannot be written) while the second chunk is being read.
    await whileFailing('imports', `new.id = ${id} and new.parsed_rows = 100000`, 'disk full', async () => {
      await expect(runImport(ctx.services, owner.account.accountId, id)).rejects.toThrow('disk full');
    });
    // No connection is left in the middle of a staging COPY.
    const copying = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and state <> 'idle' and query like 'copy import_staging.%'`.execute(ctx.services.db)).rows[0]!.n;
    await until(async () => (await copying()) === 0, { timeout: 5_000, message: 'no connection left in a staging COPY' });
    const mid = await ctx.services.db.selectFrom('imports').select(['parsedRows']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(mid.parsedRows).toBe(0);
  }, 120_000);

  it('resumes after a batch fails mid-merge: every batch, merged on two connections, is merged once', async () => {
    const rows = 350_000;
    const { id, people } = await importWithoutJob('Merge resume', rows);
    // The third batch (rows 200,001-300,000) fails as a killed connection would.
    await whileFailing('import_merged_batches', `new.import_id = ${id} and new.batch_no = 2`, 'connection lost', async () => {
      await expect(runImport(ctx.services, owner.account.accountId, id)).rejects.toThrow('connection lost');
    });
    const mid = await ctx.services.db.selectFrom('imports').select(['status', 'mergedRows', 'created']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(mid.status).toBe('importing');
    expect(mid.mergedRows).toBeGreaterThanOrEqual(100_000);
    expect(mid.mergedRows).toBeLessThan(rows);
    expect({ created: mid.created, people: await people() }).toEqual({ created: mid.mergedRows, people: mid.mergedRows });

    await runImport(ctx.services, owner.account.accountId, id);
    const final = (await owner.client.get(`/v1/imports/${id}`)).body;
    expect(final).toMatchObject({ status: 'done', progress: 1, totalRows: rows, counts: { created: rows, updated: 0, skipped: 0, failed: 0, duplicates: 0 } });
    expect(await people()).toBe(rows);
  }, 180_000);

  it('drops an import\'s staging table when it ends, and one a stopped job left behind when the next import starts', async () => {
    const staged = async (importId: number) =>
      (await sql<{ table: string | null }>`select to_regclass(${`import_staging.import_${importId}`})::text as table`.execute(ctx.services.db)).rows[0]!.table !== null;
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
      .values({ accountId: user.account.accountId, name: 'No email', fileKey: key, fieldMapping: JSON.stringify([{ column: 'E-mail', field: 'email' }]) })
      .returning('id')
      .executeTakeFirstOrThrow();
    await runImport(ctx.services, user.account.accountId, failing);
    expect((await user.client.get(`/v1/imports/${failing}`)).body).toMatchObject({ status: 'failed' });
    expect({ done: await staged(done.id), failing: await staged(failing) }).toEqual({ done: false, failing: false });
  }, 120_000);
});
