import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';

const localServer = 'postgres://postgres@127.0.0.1:5432/postgres';

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    await client.end().catch(() => undefined);
    return false;
  }
}

/**
 * An admin connection URL for the tests: DATABASE_URL when set, else the PostgreSQL on
 * 127.0.0.1:5432 when one answers, else an embedded one under .data-test/.
 */
export async function adminDatabaseUrl(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  if (await answers(localServer)) return { url: localServer, stop: async () => undefined };
  const dataDir = path.resolve(import.meta.dirname, '../../../.data-test');
  fs.mkdirSync(dataDir, { recursive: true });
  const embedded = await startEmbeddedPostgres({ dataDir, port: 54339, log: () => undefined });
  return { url: embedded.url, stop: embedded.stop };
}

/** Create a fresh database next to `adminUrl` (a copy of `template` when given); returns its URL. */
export async function createDatabase(adminUrl: string, name: string, template?: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists ${name} with (force)`);
  } finally {
    await client.end();
  }
}
