import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../apps/server/src/config.ts';
import { startServer } from '../../apps/server/src/app/server.ts';
import { startSink } from './sinks.ts';
import { buildServer } from './herald-process.ts';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * What the kill benches share: an SMTP sink, an API-only server that holds the database (embedded or DATABASE_URL)
 * and runs no jobs, and the built server as a worker process of its own, which `restartWorker` kills with SIGKILL and
 * starts again.
 */
export async function startKillHarness(port: string, secret: string) {
  const sink = await startSink();
  const config = loadConfig({
    ...process.env,
    PORT: port,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SMTP_URL: sink.url,
    SESSION_SECRET: secret,
    DATA_DIR: process.env.DATA_DIR ?? path.join(root, 'data'),
  });
  const server = await startServer(config, 'api', (m) => console.log(m));
  const databaseUrl = (server.services.pool as unknown as { options: { connectionString: string } }).options
    .connectionString;
  const main = buildServer();
  let worker: ChildProcess | null = null;
  const startWorker = () => {
    worker = spawn(process.execPath, [main, '--role=worker'], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        SMTP_URL: sink.url,
        SESSION_SECRET: secret,
        LOG_LEVEL: 'warn',
        SMTP_MAX_CONNECTIONS: process.env.SMTP_MAX_CONNECTIONS ?? '16',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  };
  return {
    sink,
    server,
    startWorker,
    /** SIGKILL the worker mid-work, and start a new one 200 ms later. */
    async restartWorker() {
      worker?.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 200));
      startWorker();
    },
    async stop() {
      worker?.kill('SIGKILL');
      await server.stop();
      sink.stop();
    },
  };
}
