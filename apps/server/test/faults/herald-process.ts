import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { until } from '../until.ts';

const root = path.resolve(import.meta.dirname, '../../../..');

/** The built server (`npm run build`), or another build of it named by FAULTS_SERVER_MAIN. */
export const serverMain = process.env.FAULTS_SERVER_MAIN ?? path.join(root, 'apps/server/dist/main.js');

export const faultsSecret = 'faults-suite-secret-faults-suite-secret-0123456789';

/** A data directory of the suite's own (sender journals, uploaded files), kept across restarts of one process. */
export function faultsDataDir(name: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `herald-faults-${name}-`));
}

/** Whole seconds since `started` (performance.now()), one decimal. */
export const secondsSince = (started: number) => Math.round((performance.now() - started) / 100) / 10;

/**
 * The built Herald server as `npm start` runs it (API and worker in one process, `node apps/server/dist/main.js`),
 * in a child process that the fault suite kills with SIGKILL and starts again. Its stderr is kept (the last 200 lines)
 * so a test can show what it logged; `exits` counts the times it ended without being killed by the suite. `args` go
 * on its command line (`--role=api`, `--role=worker`; none: the default role, all).
 */
export function heraldProcess(env: Record<string, string>, args: string[] = []) {
  if (!fs.existsSync(serverMain))
    throw new Error(`${serverMain} is missing: run npm run build first (npm run test:faults does)`);
  let child: ChildProcess | undefined;
  let killing = false;
  const log: string[] = [];
  const unexpectedExits: string[] = [];
  let starts = 0;

  const start = async (): Promise<void> => {
    killing = false;
    const started = spawn(process.execPath, [serverMain, ...args], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SESSION_SECRET: faultsSecret,
        WEB_DIST_DIR: '/nonexistent',
        SMTP_MAX_CONNECTIONS: '4',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    starts++;
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) log.push(line);
      if (log.length > 200) log.splice(0, log.length - 200);
    };
    started.stderr!.on('data', keep);
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        keep(chunk);
        // A process with the API says `Herald is running at …`; a worker alone `Herald worker is running`.
        if (/Herald (worker )?is running/.test(chunk.toString())) {
          started.stdout!.off('data', onData);
          started.stdout!.on('data', keep);
          resolve();
        }
      };
      started.stdout!.on('data', onData);
      started.once('exit', (code, signal) =>
        reject(new Error(`Herald stopped while starting (${code ?? signal}):\n${log.slice(-30).join('\n')}`)),
      );
    });
    started.once('exit', (code, signal) => {
      if (!(killing && child === started))
        unexpectedExits.push(`exit ${code ?? signal}: ${log.slice(-20).join('\n')}`);
    });
  };

  return {
    start,
    get pid() {
      return child?.pid;
    },
    get starts() {
      return starts;
    },
    /** Endings the suite did not cause (a crash): each with the log lines before it. */
    unexpectedExits,
    log,
    /** SIGKILL, as a crash or an OOM killer would; resolves once the process is gone. */
    async kill(): Promise<void> {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      killing = true;
      const gone = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGKILL');
      await gone;
    },
    async restart(): Promise<void> {
      await this.kill();
      await start();
    },
    /** Whether the process is still up. */
    isRunning(): boolean {
      return !!child && child.exitCode === null && child.signalCode === null;
    },
  };
}

export type HeraldProcess = ReturnType<typeof heraldProcess>;

/** Poll `check` until it returns a value other than undefined, or fail after `limitMs` with `describe()`. */
export async function waitUntil<T>(
  check: () => Promise<T | undefined>,
  limitMs: number,
  describe: () => Promise<string> | string,
  everyMs = 250,
): Promise<T> {
  // A check that throws (the server stopped) fails at once, as it always did: until would ask it again.
  const found = await until(
    async (): Promise<{ value: T } | { error: unknown } | undefined> => {
      try {
        const value = await check();
        return value === undefined ? undefined : { value };
      } catch (error) {
        return { error };
      }
    },
    {
      timeout: limitMs,
      interval: everyMs,
      message: async () => `not done in ${Math.round(limitMs / 1000)} s: ${await describe()}`,
    },
  );
  if ('error' in found) throw found.error;
  return found.value;
}

/** A random whole number in [min, max). */
export const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));
