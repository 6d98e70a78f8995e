import { spawn, type ChildProcess } from 'node:child_process';
import type { Bench } from './lib.ts';
import { buildServer } from './broadcast-100k.ts';

export interface HeraldProcess {
  child: ChildProcess;
  pid: number;
  base: string;
  stop(): Promise<void>;
}

/**
 * Herald as `npm start` runs it: the built server in a process of its own (API and workers), on the bench's
 * database, at 127.0.0.1:`port`. Load generators then measure that process, not the bench's event loop.
 */
export async function startHeraldProcess(bench: Bench, port: number, secret: string): Promise<HeraldProcess> {
  const main = buildServer();
  const databaseUrl = (bench.server.services.pool as unknown as { options: { connectionString: string } }).options.connectionString;
  // BENCH_NODE_ARGS: options for that Node process (--cpu-prof --cpu-prof-dir=…, to profile it).
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []), main], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', SESSION_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Herald is running') && resolve());
      child.once('exit', (code) => reject(new Error(`the Herald process stopped (exit code ${code})`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  child.stdout!.resume();
  return { child, pid: child.pid!, base: `http://127.0.0.1:${port}`, stop };
}
