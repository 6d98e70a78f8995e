import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { openDatabase } from '../src/db/connection.ts';
import { findPgTool } from '../src/db/pg-tools.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { prepareJobQueue } from '../src/jobs/runner.ts';
import { newEmail } from './email-helpers.ts';
import { createTestContext, registerUser } from './helpers.ts';
import { createDatabase, dropDatabase } from './test-database.ts';

/**
 * `npm run backup` / `npm run restore` (pg_dump and pg_restore of the configured database): a backup restored into
 * a fresh database holds every row of every table, Herald's and the job queue's; the embedded PostgreSQL is backed
 * up and restored the same way; a restore never mixes a backup into a database that has data unless told to.
 */
const serverDir = path.resolve(import.meta.dirname, '..');
const tsx = path.resolve(serverDir, '../../node_modules/.bin/tsx');
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-backup-'));
const names = ['source', 'copy', 'from_embedded'].map((name) => `herald_backup_${name}_${process.pid}`);
const [sourceName, copyName, fromEmbeddedName] = names as [string, string, string];
const urls: Record<string, string> = {};

function cli(args: string[], env: Record<string, string>) {
  const result = spawnSync(tsx, ['src/cli/index.ts', ...args], {
    cwd: serverDir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', INIT_CWD: workDir, ...env },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Every table's row count and a digest of its rows, by name, in every schema (Herald's, the job queue's, import staging). */
async function contents(url: string): Promise<Record<string, string>> {
  const handle = openDatabase(url, 1);
  try {
    const { rows: tables } = await sql<{ name: string }>`
      select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname !~ '^pg_' and schemaname <> 'information_schema' order by 1`.execute(
      handle.db,
    );
    const found: Record<string, string> = {};
    for (const { name } of tables) {
      const { rows } = await sql<{
        count: string;
        digest: string | null;
      }>`select count(*)::text as count, md5(string_agg(t::text, '|' order by t::text)) as digest from ${sql.raw(name)} t`.execute(
        handle.db,
      );
      found[name] = `${rows[0]!.count} ${rows[0]!.digest ?? '-'}`;
    }
    return found;
  } finally {
    await handle.close();
  }
}

/** PostgreSQL's client tools are not part of `npm install`: without them this file says so and skips, except in CI (.ci/run installs them). */
const hasClientTools = (() => {
  try {
    findPgTool('pg_dump');
    findPgTool('pg_restore');
    return true;
  } catch (error) {
    if (process.env.CI) throw error;
    console.warn(`backup.test.ts skipped: ${(error as Error).message}`);
    return false;
  }
})();

beforeAll(async () => {
  if (!hasClientTools) return;
  for (const name of names) urls[name] = await createDatabase(inject('adminDatabaseUrl'), name);
  const handle = openDatabase(urls[sourceName]!, 1);
  await migrateToLatest(handle.db as never);
  await prepareJobQueue(handle.pool);
  await handle.close();
  // An account with a bit of everything, written through the API.
  const ctx = await createTestContext({ DATABASE_URL: urls[sourceName]! });
  const owner = await registerUser(ctx.app);
  await owner.client.post('/v1/people/', { email: 'ada@example.com', firstName: 'Ada', tags: 'vip,early' });
  await owner.client.post('/v1/people/', { email: 'grace@example.com', firstName: 'Grace' });
  await owner.client.post('/v1/segments/', {
    name: 'VIPs',
    conditions: [{ type: 'tag', operator: 'has', tag: 'vip' }],
  });
  await owner.client.post('/v1/emails', newEmail());
  await ctx.close();
});
afterAll(async () => {
  if (!hasClientTools) return;
  for (const name of names) await dropDatabase(inject('adminDatabaseUrl'), name);
  fs.rmSync(workDir, { recursive: true, force: true });
});

// Each test starts the CLI (Node loading the server through tsx) two to four times, and pg_dump or pg_restore each
// time: about 6 s a start beside CI's journeys, where one test ran past the suite's 30 s.
describe.runIf(hasClientTools)('backup and restore', { timeout: 120_000 }, () => {
  it('restores a backup into a fresh database with every row of every table', async () => {
    const backedUp = cli(['backup', '--file', 'source.dump'], { DATABASE_URL: urls[sourceName]! });
    expect(backedUp.output).toMatch(/^Backup written to .*source\.dump/m);
    expect(backedUp.status).toBe(0);
    const restored = cli(['restore', 'source.dump'], { DATABASE_URL: urls[copyName]! });
    expect(restored.output).toMatch(/^Restored /m);
    expect(restored.status).toBe(0);
    const source = await contents(urls[sourceName]!);
    expect(Object.keys(source).length).toBeGreaterThan(50);
    expect(source['public.people']).toMatch(/^2 /);
    expect(await contents(urls[copyName]!)).toEqual(source);
  });

  it('refuses to restore over data unless --replace, and then replaces it', async () => {
    const before = await contents(urls[copyName]!);
    const refused = cli(['restore', 'source.dump'], { DATABASE_URL: urls[copyName]! });
    expect(refused.status).toBe(2);
    expect(refused.output).toMatch(/already holds Herald data.*--replace/);
    expect(await contents(urls[copyName]!)).toEqual(before);
    expect(cli(['restore', 'no-such.dump'], { DATABASE_URL: urls[copyName]! })).toMatchObject({
      status: 2,
      output: expect.stringMatching(/No backup at/),
    });
    const replaced = cli(['restore', 'source.dump', '--replace'], { DATABASE_URL: urls[copyName]! });
    expect(replaced.output).toMatch(/^Restored /m);
    expect(replaced.status).toBe(0);
    expect(await contents(urls[copyName]!)).toEqual(await contents(urls[sourceName]!));
  });

  it('backs up and restores the embedded PostgreSQL of a data dir, starting it for the work when Herald is not running', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as net.AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const embedded = { DATA_DIR: path.join(workDir, 'data'), EMBEDDED_PG_PORT: String(port) };
    expect(cli(['restore', 'source.dump'], embedded)).toMatchObject({ status: 0 });
    expect(cli(['backup', '--file', 'embedded.dump'], embedded)).toMatchObject({ status: 0 });
    expect(cli(['restore', 'embedded.dump'], { DATABASE_URL: urls[fromEmbeddedName]! })).toMatchObject({
      status: 0,
    });
    expect(await contents(urls[fromEmbeddedName]!)).toEqual(await contents(urls[sourceName]!));
  }, 180_000);
});
