import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { serverSettings, startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-embedded-'));
/** Whether nothing listens on the port now. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * Two free ports in a row (the tests use port and port + 1), below Linux's range for outgoing connections
 * (32768–60999): a port picked in that range was once taken by another file's connection meanwhile.
 */
async function freePortPair(): Promise<number> {
  for (;;) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await isFree(candidate)) && (await isFree(candidate + 1))) return candidate;
  }
}

const port = await freePortPair();
const logs: string[] = [];
const log = (m: string) => logs.push(m);

async function setting(url: string, name: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ v: string }>('select current_setting($1) as v', [name]);
  await client.end();
  return rows[0]!.v;
}
const selectOne = (url: string) => setting(url, 'server_version');

const clusterDirs = new Set<string>();
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  // Run as root from a directory the postgres user cannot reach, the cluster lives in a fallback place.
  for (const dir of clusterDirs)
    if (dir.startsWith('/var/lib/herald/')) fs.rmSync(path.dirname(dir), { recursive: true, force: true });
});

describe('embedded PostgreSQL', () => {
  it('initialises a cluster, serves PostgreSQL 15 on its own port, and restarts on the same data', async () => {
    const first = await startEmbeddedPostgres({ dataDir, port, log });
    clusterDirs.add(first.clusterDir);
    expect(first.url).toContain(`:${port}/herald`);
    expect(await selectOne(first.url)).toMatch(/^15\./);
    // Sized to the machine: a quarter of the memory for shared buffers, between 128 MB and 2 GB.
    const expectedMb = Math.max(128, Math.min(2048, Math.floor(os.totalmem() / 4 / 1024 / 1024)));
    expect(await setting(first.url, 'shared_buffers')).toBe(
      expectedMb % 1024 === 0 ? `${expectedMb / 1024}GB` : `${expectedMb}MB`,
    );
    expect(await setting(first.url, 'max_wal_size')).toBe('4GB');
    await first.stop();
    const second = await startEmbeddedPostgres({ dataDir, port, log });
    expect(await selectOne(second.url)).toMatch(/^15\./);
    await second.stop();
    if (process.getuid?.() === 0) {
      // Run as root, the postmaster runs as the dedicated user, never as root.
      expect(fs.statSync(first.clusterDir).uid).not.toBe(0);
    }
  }, 120_000);

  it('sizes shared buffers to a quarter of the memory, within 128 MB and 2 GB', () => {
    const gb = 1024 ** 3;
    expect(serverSettings(24 * gb)).toContain('shared_buffers=2048MB');
    expect(serverSettings(2 * gb)).toContain('shared_buffers=512MB');
    expect(serverSettings(256 * 1024 ** 2)).toContain('shared_buffers=128MB');
  });

  it('recovers from a stale postmaster.pid left by a killed run', async () => {
    const started = await startEmbeddedPostgres({ dataDir, port, log });
    await started.stop();
    fs.writeFileSync(
      path.join(started.clusterDir, 'postmaster.pid'),
      `999999\n${started.clusterDir}\n0\n${port}\n`,
    );
    logs.length = 0;
    const again = await startEmbeddedPostgres({ dataDir, port, log });
    expect(logs.join('\n')).toMatch(/Removed a stale postmaster.pid/);
    expect(await selectOne(again.url)).toMatch(/^15\./);
    await again.stop();
  }, 120_000);

  it('reuses a postmaster that outlived the process that started it', async () => {
    const orphan = await startEmbeddedPostgres({ dataDir, port, log });
    // The first handle is dropped without stop(), as when the server is killed.
    const pid = Number(
      fs.readFileSync(path.join(orphan.clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    logs.length = 0;
    const next = await startEmbeddedPostgres({ dataDir, port: port + 1, log });
    expect(logs.join('\n')).toMatch(/already running/);
    expect(next.url).toContain(`:${port}/`);
    expect(await selectOne(next.url)).toMatch(/^15\./);
    await orphan.stop();
    expect(() => process.kill(pid, 0)).toThrow();
  }, 120_000);

  it('says clearly when its port is taken', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-embedded-b-'));
    const running = await startEmbeddedPostgres({ dataDir, port, log });
    try {
      await expect(startEmbeddedPostgres({ dataDir: other, port, log })).rejects.toThrow(/EMBEDDED_PG_PORT/);
    } finally {
      await running.stop();
      fs.rmSync(other, { recursive: true, force: true });
    }
  }, 120_000);
});
