import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import type { Database } from '../../apps/server/src/db/connection.ts';
import { ensureBenchData } from './bench-data.ts';
import { call, checkpoint, round1, startBench, unbounded, vacuumAnalyze } from './lib.ts';

/** Rows of the bench file; half of them are new people at `newDomain` (import-floor stages the same shape). */
export const rows = 1_000_000;
export const newDomain = 'bench-import.example';
const header = [
  'Email',
  'First name',
  'Last name',
  'Phone',
  'Company',
  'Website',
  'City',
  'Plan',
  'Score',
  'Signed up',
  'Newsletter',
  'Tags',
];
const cities = ['Berlin', 'Lisbon', 'Austin', 'Osaka', 'Lagos', 'Lima', 'Oslo', 'Pune'];
const plans = ['free', 'starter', 'pro', 'business'];

/** Custom fields the file fills: made by the first run's import (newField), reused after. */
const customColumns = [
  { column: 'City', field: 'city', title: 'City', type: 'string' },
  { column: 'Plan', field: 'plan_tier', title: 'Plan tier', type: 'string' },
  { column: 'Score', field: 'score', title: 'Score', type: 'number' },
  { column: 'Signed up', field: 'signed_up', title: 'Signed up', type: 'date' },
  { column: 'Newsletter', field: 'newsletter', title: 'Newsletter', type: 'boolean' },
] as const;

/**
 * The emails of the account's first `count` people by id, 50,000 at a time: the file is written as they
 * come, so the bench process never holds them all (its memory is the figure the workload reports).
 */
async function* existingEmails(db: Database, accountId: number, count: number): AsyncGenerator<string> {
  let after = 0;
  let left = count;
  while (left > 0) {
    const page = await unbounded(
      db,
      async (trx) =>
        (
          await sql<{ key: string; email: string }>`select id::text as key, email from people
        where account_id = ${accountId} and email is not null and id > ${after} order by id limit ${Math.min(50_000, left)}`.execute(
            trx,
          )
        ).rows,
    );
    if (page.length === 0) return;
    for (const row of page) yield row.email;
    after = Number(page[page.length - 1]!.key);
    left -= page.length;
  }
}

/** Half the rows are people the account has, half are new: both the update and the insert path. */
async function writeCsv(file: string, existing: AsyncGenerator<string>): Promise<void> {
  const out = fs.createWriteStream(file);
  const write = (line: string) =>
    out.write(line) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  await write(`${header.join(',')}\n`);
  for (let i = 0; i < rows; i += 1) {
    const known = i % 2 === 0 ? await existing.next() : undefined;
    const email = known && !known.done ? known.value : `imp-${i}@${newDomain}`;
    const line = [
      email,
      `First${i % 997}`,
      `Last${i % 991}`,
      `+1 555 ${String(i).padStart(7, '0')}`,
      `"Company ${i % 5000}, Inc."`,
      `https://site${i % 9000}.example`,
      cities[i % cities.length],
      plans[i % plans.length],
      String(i % 1000),
      `2025-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
      i % 3 === 0 ? 'true' : 'false',
      i % 4 === 0 ? '"imported, csv"' : 'imported',
    ].join(',');
    await write(`${line}\n`);
    if ((i + 1) % 250_000 === 0) console.log(`  wrote ${i + 1} rows`);
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

/**
 * PUT the file to the signed upload URL from a separate Node process, as a browser would: the memory
 * figure is this process's (the server's), and an HTTP client here would hold the file's buffers in it.
 */
async function uploadFromOtherProcess(url: string, file: string, size: number): Promise<void> {
  const script = `
    const http = require('node:http');
    const fs = require('node:fs');
    const [url, file, size] = process.argv.slice(1);
    const req = http.request(url, { method: 'PUT', headers: { 'content-type': 'text/csv', 'content-length': size } }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => { if (res.statusCode !== 204) { console.error(res.statusCode + ' ' + body); process.exit(1); } });
    });
    req.on('error', (e) => { console.error(e.message); process.exit(1); });
    fs.createReadStream(file).pipe(req);`;
  const { stderr } = await promisify(execFile)(process.execPath, [
    '-e',
    script,
    url,
    file,
    String(size),
  ]).catch((error: { stderr?: string; message: string }) => {
    throw new Error(`upload failed: ${error.stderr || error.message}`);
  });
  if (stderr) console.log(stderr);
}

const snapshotTable = 'bench_import_1m_before';

/** Bytes in whole megabytes, for the memory lines. */
const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));

/**
 * Put the account back as it was before the first run, so every run does the same work: remove the
 * people an earlier run created, and give the existing half (the first 500,000 by id, whose emails the
 * file holds) their values from a snapshot taken before the first run ever changed them.
 */
async function resetAccount(db: Database, accountId: number): Promise<void> {
  await unbounded(db, async (trx) => {
    const removed =
      await sql`delete from people where account_id = ${accountId} and email_key like ${`%@${newDomain}`}`.execute(
        trx,
      );
    console.log(`  removed ${Number(removed.numAffectedRows ?? 0)} people left by an earlier run`);
    // Their consent records went with them; those of the people the file updates stay, one more each run.
    const records =
      await sql`delete from consent_records where account_id = ${accountId} and source = 'import'`.execute(
        trx,
      );
    console.log(`  removed ${Number(records.numAffectedRows ?? 0)} consent records of earlier runs`);
    const snapshot = await sql<{
      exists: boolean;
    }>`select to_regclass(${snapshotTable}) is not null as exists`.execute(trx);
    if (!snapshot.rows[0]!.exists) {
      const touched = await sql<{
        n: number;
      }>`select count(*)::int as n from people where account_id = ${accountId} and 'bench-import' = any(tags)`.execute(
        trx,
      );
      if (touched.rows[0]!.n > 0)
        throw new Error(
          `no snapshot of the account before the first import-1m run; reload the bench data (bench-data) to compare runs`,
        );
      await sql`create table ${sql.table(snapshotTable)} as
        select account_id, id, first_name, last_name, phone, company, website, external_id, fields, tags, updated_at
        from people where account_id = ${accountId} and email is not null order by id limit ${rows / 2}`.execute(
        trx,
      );
      console.log(`  took a snapshot of the ${rows / 2} people the file updates`);
      return;
    }
    const restored =
      await sql`update people p set first_name = b.first_name, last_name = b.last_name, phone = b.phone, company = b.company,
        website = b.website, external_id = b.external_id, fields = b.fields, tags = b.tags, updated_at = b.updated_at
      from ${sql.table(snapshotTable)} b
      where p.account_id = b.account_id and p.id = b.id
        and (p.first_name, p.last_name, p.phone, p.company, p.website, p.external_id, p.fields, p.tags)
            is distinct from (b.first_name, b.last_name, b.phone, b.company, b.website, b.external_id, b.fields, b.tags)`.execute(
        trx,
      );
    console.log(`  restored ${Number(restored.numAffectedRows ?? 0)} people an earlier run updated`);
  });
}

/**
 * Wait until the segment rebuilds that resetting the account set off (it deletes and restores
 * 500,000 people) are done, so the timed import does not share the machine with them. Jobs locked
 * by a worker that is gone (an earlier run stopped mid-job) are not waited for.
 */
async function settleSegmentRefreshes(db: Database, accountId: number): Promise<void> {
  const started = performance.now();
  for (;;) {
    const { rows } = await sql<{ marks: number; jobs: number }>`select
        (select count(*)::int from segment_dirty_accounts where account_id = ${accountId})
          + (select count(*)::int from (select 1 from segment_dirty_people where account_id = ${accountId} limit 1) p) as marks,
        (select count(*)::int from graphile_worker.jobs where task_identifier in ('refresh-segment', 'refresh-segments', 'people-search-fill', 'people-search-blocks')
          and attempts < max_attempts and (locked_at is null or locked_at > now() - interval '10 minutes')) as jobs`.execute(
      db,
    );
    const { marks, jobs } = rows[0]!;
    if (marks === 0 && jobs === 0) break;
    if (performance.now() - started > 15 * 60_000)
      throw new Error('segment refreshes did not settle in 15 minutes');
    await new Promise((r) => setTimeout(r, 1000));
  }
  console.log(
    `  segment refreshes and search fills after the reset settled in ${round1((performance.now() - started) / 1000)} s`,
  );
}

/**
 * How long after the import is done its people are findable by any part of their name or email: the
 * people-search-fill job it asked for, then a search for part of the last new person's email.
 */
async function reportSearchFill(
  db: Database,
  apiKey: string,
  bench: Awaited<ReturnType<typeof startBench>>,
  accountId: number,
  importId: number,
): Promise<void> {
  const started = performance.now();
  for (;;) {
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from graphile_worker.jobs where key = ${`people-search-fill:${accountId}:${importId}`}`.execute(
      db,
    );
    if (rows[0]!.n === 0) break;
    if (performance.now() - started > 10 * 60_000)
      throw new Error('the search fill did not finish in 10 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
  const filled = (performance.now() - started) / 1000;
  const part = `imp-${rows - 1}@bench-import`;
  const { body } = await call<{ users: { email: string }[] }>(
    bench,
    'GET',
    `/v1/people/search?query=${encodeURIComponent(part)}`,
    { apiKey },
  );
  if (!body.users.some((u) => u.email === `imp-${rows - 1}@${newDomain}`))
    throw new Error(`a search for "${part}" did not find the imported person`);
  console.log(
    `  imported people findable by any part of name or email ${round1(filled)} s after the import was done (people-search-fill)`,
  );
  // The fill then asks for the account's blocks of search entries to be summarised (people-search-blocks): until
  // they are, searches walk the import's people rather than pass them by. `people-search` run next measures after it.
  const blocksStarted = performance.now();
  for (;;) {
    const { rows: waiting } = await sql<{ n: number }>`select count(*)::int as n from graphile_worker.jobs
      where key = ${`people-search-blocks:${accountId}`}`.execute(db);
    if (waiting[0]!.n === 0) break;
    if (performance.now() - blocksStarted > 10 * 60_000)
      throw new Error('the summary of the blocks of search entries did not finish in 10 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(
    `  blocks of search entries summarised ${round1((performance.now() - blocksStarted) / 1000)} s after that (people-search-blocks)`,
  );
}

/**
 * `import-1m`: seconds from POST /v1/imports until the import is done, for a CSV of 1,000,000 rows
 * (email, 10 fields, tags) into the account that already has 1M people; the line before the figure
 * is the peak memory (RSS) of this process, which runs the API and the worker.
 */
export async function import1m(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench();
  try {
    const { accountId, apiKey } = await ensureBenchData(bench);
    const file = path.join(bench.config.dataDir, 'bench-import-1m.csv');
    await resetAccount(bench.db, accountId);
    if (!fs.existsSync(file)) {
      console.log(`  writing ${file}`);
      await writeCsv(file, existingEmails(bench.db, accountId, rows / 2));
    }
    // What autovacuum does between imports on a server that runs it (this machine's PostgreSQL does not):
    // putting the account back after an earlier run leaves a million dead people rows and consent records.
    await vacuumAnalyze(bench.db, ['people', 'consent_records']);
    await settleSegmentRefreshes(bench.db, accountId);
    const existingFields = new Set(
      (
        await sql<{ name: string }>`select name from person_fields where account_id = ${accountId}`.execute(
          bench.db,
        )
      ).rows.map((r) => r.name),
    );
    const fieldMapping = [
      { column: 'Email', field: 'email' },
      { column: 'First name', field: 'firstName' },
      { column: 'Last name', field: 'lastName' },
      { column: 'Phone', field: 'phone' },
      { column: 'Company', field: 'company' },
      { column: 'Website', field: 'website' },
      ...customColumns.map((c) =>
        existingFields.has(c.field)
          ? { column: c.column, field: c.field }
          : { column: c.column, field: c.field, newField: { title: c.title, type: c.type } },
      ),
      { column: 'Tags', field: 'tags' },
    ];

    const upload = await call<{ url: string; key: string }>(bench, 'POST', '/v1/imports/upload-url', {
      apiKey,
    });
    const size = fs.statSync(file).size;
    console.log(`  uploading ${Math.round(size / 1e6)} MB`);
    await uploadFromOtherProcess(upload.body.url, file, size);

    await checkpoint(bench.db);
    let peak = process.memoryUsage();
    console.log(`  memory before the import: ${mb(peak.rss)} MB (JS heap ${mb(peak.heapUsed)} MB)`);
    let peakPhase = 'before';
    let phase = 'queued';
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      if (now.rss > peak.rss) {
        peak = now;
        peakPhase = phase;
      }
    }, 100);
    const walBefore = (await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(bench.db))
      .rows[0]!.lsn;
    const started = performance.now();
    const created = await call<{ id: number }>(bench, 'POST', '/v1/imports', {
      apiKey,
      body: {
        name: 'bench import 1m',
        peopleFileKey: upload.body.key,
        numPeople: rows,
        fieldMapping,
        tags: ['bench-import'],
        existingPeopleStrategy: 'update',
      },
      expect: 201,
    });
    let last = '';
    let lockWait = 0;
    let lastPoll = performance.now();
    for (;;) {
      // Time the import's statements spend waiting for other transactions' locks (e.g. segment refreshes).
      const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and (query like 'with batch as%' or query like 'copy import_staging.%')`.execute(
        bench.db,
      );
      const now = performance.now();
      if (waiting.rows[0]!.n > 0) lockWait += now - lastPoll;
      lastPoll = now;
      const { body } = await call<{
        status: string;
        progress: number;
        counts: Record<string, number>;
        error: string | null;
      }>(bench, 'GET', `/v1/imports/${created.body.id}`, { apiKey });
      phase = body.status;
      const line = `  ${body.status} ${Math.round(body.progress * 100)}%`;
      if (line !== last) console.log(`${line} (${round1((performance.now() - started) / 1000)} s)`);
      last = line;
      if (body.status === 'failed') throw new Error(`import failed: ${body.error}`);
      if (body.status === 'done') {
        console.log(`  counts ${JSON.stringify(body.counts)}`);
        console.log(
          `  import statements waited on other transactions' locks for about ${round1(lockWait / 1000)} s`,
        );
        const wal = await sql<{
          mb: number;
        }>`select round(pg_wal_lsn_diff(pg_current_wal_lsn(), ${walBefore}::pg_lsn) / 1048576)::int as mb`.execute(
          bench.db,
        );
        console.log(`  WAL written meanwhile (the whole server): ${wal.rows[0]!.mb} MB`);
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    await reportSearchFill(bench.db, apiKey, bench, accountId, created.body.id);
    console.log(
      `  at the peak (${peakPhase}): JS heap ${mb(peak.heapUsed)} of ${mb(peak.heapTotal)} MB, external ${mb(peak.external)} MB, buffers ${mb(peak.arrayBuffers)} MB`,
    );
    console.log(`peak memory: ${mb(peak.rss)} MB`);
    return { figure: round1(seconds), unit: 's' };
  } finally {
    await bench.stop();
  }
}
