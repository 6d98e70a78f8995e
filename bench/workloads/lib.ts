import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig, type Config } from '../../apps/server/src/config.ts';
import type { Database } from '../../apps/server/src/db/connection.ts';
import { hashToken, randomToken } from '../../apps/server/src/lib/tokens.ts';
import { startServer, type RunningServer } from '../../apps/server/src/app/server.ts';

/** Shared plumbing of the workloads: the in-process server, the 1M account's credentials, HTTP, stats. */

export const benchAccountName = 'bench-1m';
export const benchPeople = 1_000_000;
export const benchEvents = 10_000_000;

export interface Bench {
  server: RunningServer;
  config: Config;
  base: string;
  db: Database;
  stop(): Promise<void>;
}

export interface BenchAccount {
  accountId: number;
  apiKey: string;
  writeKey: string;
}

/** Start the real server (API + worker) on 127.0.0.1, on DATABASE_URL or the embedded database. */
export async function startBench(role: 'all' | 'api' = 'all'): Promise<Bench> {
  const config = loadConfig({
    ...process.env,
    PORT: process.env.PORT ?? '3950',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATA_DIR: process.env.DATA_DIR ?? path.resolve(import.meta.dirname, '../../data'),
  });
  const server = await startServer(config, role, (m) => console.log(m));
  return {
    server,
    config,
    base: `http://127.0.0.1:${config.port}`,
    db: server.services.db,
    stop: () => server.stop(),
  };
}

/** Run `fn` on one owner connection with no statement timeout (the pool's 30 s is for requests). */
export function unbounded<T>(db: Database, fn: (trx: Database) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`set local statement_timeout = 0`.execute(trx);
    await sql`set local synchronous_commit = off`.execute(trx);
    return fn(trx as unknown as Database);
  });
}

/** VACUUM (ANALYZE) tables on one connection without the pool's statement timeout (not possible in a transaction). */
export async function vacuumAnalyze(db: Database, tables: string[]) {
  await db.connection().execute(async (conn) => {
    await sql`set statement_timeout = 0`.execute(conn);
    for (const table of tables) {
      const started = performance.now();
      await sql`vacuum (analyze) ${sql.table(table)}`.execute(conn);
      console.log(`  vacuum analyze ${table}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    await sql`reset statement_timeout`.execute(conn);
  });
}

/**
 * Start the timed part of a write workload right after a checkpoint: the first change of each page after
 * a checkpoint writes the whole page to the WAL, so figures depend on how long ago the last one ran. With
 * checkpoints every few minutes, a real import finds nearly every page it touches in that state.
 */
export async function checkpoint(db: Database): Promise<void> {
  const started = performance.now();
  try {
    await sql`checkpoint`.execute(db);
    console.log(`  checkpoint: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    // A DATABASE_URL user that is neither superuser nor pg_checkpoint: the figure then depends on the last one.
    console.log(
      `  no checkpoint before timing (${(error as Error).message}): figures may vary more from run to run`,
    );
  }
}

/** The marker account, if it was created (loaded or not). */
export async function findBenchAccountRow(db: Database) {
  const { rows } = await sql<{ id: number; writeKey: string; apiKeyHash: string | null }>`
    select id, write_key, api_key_hash from accounts where name = ${benchAccountName} and deleting_at is null order by id limit 1`.execute(
    db,
  );
  return rows[0];
}

/** Rows the marker account holds: people and events (counted exactly; an index-only scan after VACUUM). */
export async function benchCounts(db: Database, accountId: number) {
  return unbounded(db, async (trx) => {
    const { rows } = await sql<{ people: number; events: number }>`select
      (select count(*) from people where account_id = ${accountId})::int as people,
      (select count(*) from events where account_id = ${accountId})::int as events`.execute(trx);
    return rows[0]!;
  });
}

const credentialsFile = (config: Config) => path.join(config.dataDir, 'bench-1m.json');

/**
 * The API key of the marker account. The database keeps only its hash, so the key lives in
 * DATA_DIR/bench-1m.json; when that file is missing or stale (another database), a new key is set.
 */
export async function benchCredentials(
  bench: Bench,
  accountId: number,
  writeKey: string,
  apiKey?: string,
): Promise<BenchAccount> {
  const file = credentialsFile(bench.config);
  if (!apiKey) {
    try {
      const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<BenchAccount>;
      if (saved.accountId === accountId && typeof saved.apiKey === 'string') apiKey = saved.apiKey;
    } catch {
      // no saved key yet
    }
  }
  const row = await findBenchAccountRow(bench.db);
  if (!apiKey || row?.apiKeyHash !== hashToken(apiKey)) {
    apiKey = `hk_${randomToken(30)}`;
    await sql`update accounts set api_key_hash = ${hashToken(apiKey)}, api_key_hint = ${apiKey.slice(-4)} where id = ${accountId}`.execute(
      bench.db,
    );
  }
  const account = { accountId, apiKey, writeKey };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(account, null, 2)}\n`, { mode: 0o600 });
  return account;
}

/** fetch() against the bench server, failing on an unexpected status. */
export async function call<T>(
  bench: Bench,
  method: string,
  url: string,
  options: { apiKey?: string; writeKey?: string; body?: unknown; expect?: number } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (options.writeKey) headers['x-write-key'] = options.writeKey;
  const res = await fetch(`${bench.base}${url}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  const expect = options.expect ?? 200;
  if (res.status !== expect)
    throw new Error(`${method} ${url}: ${res.status} (expected ${expect}) ${text.slice(0, 300)}`);
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export const round1 = (n: number) => Math.round(n * 10) / 10;
