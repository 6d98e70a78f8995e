import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Bench } from './lib.ts';

/** Build the server as `npm start` runs it (apps/server/dist), so the figures are those of the deployed process. */
export function buildServer(): string {
  const root = path.resolve(import.meta.dirname, '../..');
  const built = spawnSync(process.execPath, ['apps/server/scripts/build.mjs'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('the server did not build');
  return path.join(root, 'apps/server/dist/main.js');
}

export interface HeraldProcess {
  child: ChildProcess;
  pid: number;
  base: string;
  stop(): Promise<void>;
}

export interface HeraldProcessOptions {
  databaseUrl: string;
  port: number;
  secret: string;
  /** More settings (SMTP_URL, say). */
  env?: NodeJS.ProcessEnv;
  /** The built server's entry (built now when not given). */
  main?: string;
}

/** The connection string of the bench's database, for a Herald process of its own. */
export function databaseUrlOf(bench: Bench): string {
  return (bench.server.services.pool as unknown as { options: { connectionString: string } }).options
    .connectionString;
}

/**
 * Herald as `npm start` runs it: the built server in a process of its own (API and workers), on the bench's
 * database, at 127.0.0.1:`port`. Load generators then measure that process, not the bench's event loop.
 * BENCH_NODE_ARGS: options for that Node process (--cpu-prof --cpu-prof-dir=…, to profile it). BENCH_HERALD_LOG: a
 * file for its standard output (with BENCH_NODE_ARGS=--trace-gc, its garbage collections).
 */
export async function startHeraldProcess(options: HeraldProcessOptions): Promise<HeraldProcess> {
  const main = options.main ?? buildServer();
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []), main],
    {
      env: {
        ...process.env,
        DATABASE_URL: options.databaseUrl,
        PORT: String(options.port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SESSION_SECRET: options.secret,
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const stop = () => stopChild(child);
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on(
        'data',
        (chunk: Buffer) => chunk.toString().includes('Herald is running') && resolve(),
      );
      child.once('exit', (code) => reject(new Error(`the Herald process stopped (exit code ${code})`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  if (process.env.BENCH_HERALD_LOG) child.stdout!.pipe(fs.createWriteStream(process.env.BENCH_HERALD_LOG));
  else child.stdout!.resume();
  return { child, pid: child.pid!, base: `http://127.0.0.1:${options.port}`, stop };
}

/** SIGTERM to a child process of a bench, resolved once it has exited (at once if it already has). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
