import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { e2eSessionSecret } from './global-setup.ts';
import { until } from './until.ts';

const root = path.resolve(import.meta.dirname, '../..');

export interface ExtraServer {
  /** Its base address, e.g. http://localhost:41234. */
  base: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/**
 * A Herald of a journey's own, beside the shared one from global-setup, for a configuration the shared server does
 * not have (billing off, payment providers, no AI provider). It runs from the sources like the shared one, with its
 * own data directory; `env` adds to (or, with undefined, removes from) the shared server's settings.
 */
export async function startExtraServer(options: {
  name: string;
  databaseUrl: string;
  role?: 'all' | 'api';
  env?: Record<string, string | undefined>;
}): Promise<ExtraServer> {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `herald-e2e-${options.name}-`));
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: options.databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    LOG_LEVEL: 'warn',
    SMTP_URL: '',
    TRUST_PROXY: 'true',
    SESSION_SECRET: e2eSessionSecret,
    DATA_DIR: dataDir,
    ...options.env,
  };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  const output: string[] = [];
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', 'apps/server/src/app/main.ts', `--role=${options.role ?? 'all'}`],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  server.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  server.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  const stop = async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const started = await until(
    async () =>
      server.exitCode !== null
        ? 'stopped'
        : (await fetch(`${base}/v1/heartbeat`).then(
            (r) => r.ok,
            () => false,
          )) && 'answering',
    {
      timeout: 60_000,
      interval: 250,
      message: () => `the ${options.name} server started:\n${output.join('')}\n`,
    },
  ).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  if (started === 'stopped')
    throw new Error(`the ${options.name} server stopped while starting:\n${output.join('')}`);
  return { base, stop };
}
