import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createDatabase, dropDatabase } from './test-database.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

/**
 * `NODE_ENV=production`: the compiled server (esbuild, plain Node, no TypeScript loader) refuses to start without
 * its secrets, logs nothing but JSON lines, and stops cleanly on SIGTERM. It runs on a database of its own, so its
 * job worker never touches the jobs of the other test files.
 */
const serverDir = path.resolve(import.meta.dirname, '..');
const outdir = path.join(serverDir, 'node_modules', `.herald-test-dist-${process.pid}`);
const databaseName = `herald_production_start_${process.pid}`;
let databaseUrl: string;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-production-'));

beforeAll(async () => {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--outdir', outdir], {
    cwd: serverDir,
    encoding: 'utf8',
  });
  expect(built.status, built.stderr).toBe(0);
  databaseUrl = await createDatabase(inject('adminDatabaseUrl'), databaseName);
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.close();
  await dropDatabase(inject('adminDatabaseUrl'), databaseName);
  fs.rmSync(outdir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** The compiled server as a child process, with only the environment given (and PATH). */
function startCompiled(env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(outdir, 'main.js')], {
    cwd: serverDir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts.filter(Boolean));
    });
  }
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

const parsed = (lines: string[]) =>
  lines.map((line) => JSON.parse(line) as { level: number; time: number; msg: string });

describe('production start', () => {
  it('refuses to start without SMTP_URL, SESSION_SECRET and PUBLIC_URL, saying so in JSON', async () => {
    const server = startCompiled({ NODE_ENV: 'production', DATABASE_URL: databaseUrl, DATA_DIR: dataDir });
    expect(await server.exited).toBe(1);
    const logged = parsed(server.lines);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 50,
      msg: expect.stringMatching(/SMTP_URL: [\s\S]*SESSION_SECRET: [\s\S]*PUBLIC_URL: /),
    });
  });

  it('runs the compiled code, answers, logs only JSON and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const server = startCompiled({
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      SMTP_URL: smtp.url,
      SESSION_SECRET: 'production-start-secret-0123456789abcdef',
      PUBLIC_URL: 'https://herald.example.com',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      WEB_DIST_DIR: path.join(dataDir, 'no-web-build'),
    });
    const started = await until(
      () =>
        server.child.exitCode !== null
          ? 'exited'
          : server.lines.some((line) => line.includes('Herald is running')) && 'running',
      {
        timeout: 60_000,
        message: () => `not started:\n${server.lines.join('\n')}\n`,
      },
    );
    expect(started, `not started:\n${server.lines.join('\n')}`).toBe('running');
    const heartbeat = await fetch(`http://127.0.0.1:${port}/v1/heartbeat`);
    expect(heartbeat.status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const logged = parsed(server.lines);
    expect(logged.map((line) => line.msg)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Herald is running at https:\/\/herald\.example\.com/),
        expect.stringMatching(/^SIGTERM received/),
        expect.stringMatching(/^Stopped cleanly in \d+ ms$/),
      ]),
    );
    for (const line of logged)
      expect(line).toMatchObject({
        level: expect.any(Number),
        time: expect.any(Number),
        msg: expect.any(String),
      });
  });
});
