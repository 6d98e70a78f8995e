import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

/** The oldest client that can dump and restore the PostgreSQL 15 Herald runs on. */
const minimumMajor = 15;

export class PgToolError extends Error {}

function majorOf(binary: string): number | undefined {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  const match = result.status === 0 ? /\(PostgreSQL\) (\d+)/.exec(result.stdout) : null;
  return match ? Number(match[1]) : undefined;
}

/**
 * PostgreSQL's own pg_dump or pg_restore, version 15 or newer: the one on PATH, else the newest under
 * /usr/lib/postgresql/<version>/bin (Debian and Ubuntu's layout). The embedded PostgreSQL ships only the server.
 */
export function findPgTool(name: 'pg_dump' | 'pg_restore'): string {
  const candidates: string[] = [name];
  const debianRoot = '/usr/lib/postgresql';
  if (fs.existsSync(debianRoot)) {
    const versions = fs
      .readdirSync(debianRoot)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => path.join(debianRoot, v, 'bin', name)));
  }
  for (const candidate of candidates) {
    const major = majorOf(candidate);
    if (major !== undefined && major >= minimumMajor) return candidate;
  }
  throw new PgToolError(
    `${name} ${minimumMajor} or newer was not found. Install PostgreSQL's client tools ` +
      `(Debian/Ubuntu: apt-get install postgresql-client-${minimumMajor}; macOS: brew install postgresql@${minimumMajor}) and try again.`,
  );
}

/**
 * Run `work` with the URL of the configured database: DATABASE_URL, or the embedded PostgreSQL of DATA_DIR —
 * the running one when Herald is up, otherwise started for the length of the work and stopped after.
 */
export async function withConfiguredDatabase<T>(
  config: Config,
  log: (message: string) => void,
  work: (url: string) => Promise<T>,
): Promise<T> {
  if (config.databaseUrl) return work(config.databaseUrl);
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, log });
  try {
    return await work(embedded.url);
  } finally {
    await embedded.stop();
  }
}
