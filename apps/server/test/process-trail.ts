import type { Runner } from 'graphile-worker';
import type pg from 'pg';

/**
 * What this test process's own parts were doing, for the time-out report (timeout-report.ts): each open context's
 * connection pool (held, idle, waiting callers) and each running job worker's last steps. A job that waits due and
 * unlocked while no session holds it is either a worker that stopped asking (its last "asked for a job" is old) or a
 * pool with every connection held in the process (callers waiting), which the database alone cannot show.
 */
interface WorkerTrail {
  started: number;
  lastAsked?: number;
  lastEmpty?: number;
  lastStarted?: { at: number; task: string; id: string };
  lastDone?: { at: number; task: string; id: string; error?: string };
  lastError?: { at: number; error: string };
  running: number;
}

const pools = new Set<pg.Pool>();
const workers = new Map<Runner, WorkerTrail>();

export function tracePool(pool: pg.Pool): () => void {
  pools.add(pool);
  return () => pools.delete(pool);
}

export function traceWorker(runner: Runner): () => void {
  const trail: WorkerTrail = { started: Date.now(), running: 0 };
  workers.set(runner, trail);
  runner.events.on('worker:getJob:start', () => (trail.lastAsked = Date.now()));
  runner.events.on('worker:getJob:empty', () => (trail.lastEmpty = Date.now()));
  runner.events.on(
    'worker:getJob:error',
    ({ error }) => (trail.lastError = { at: Date.now(), error: String(error) }),
  );
  runner.events.on(
    'pool:listen:error',
    ({ error }) => (trail.lastError = { at: Date.now(), error: String(error) }),
  );
  runner.events.on('job:start', ({ job }) => {
    trail.running++;
    trail.lastStarted = { at: Date.now(), task: job.task_identifier, id: job.id };
  });
  runner.events.on('job:complete', ({ job, error }) => {
    trail.running--;
    trail.lastDone = {
      at: Date.now(),
      task: job.task_identifier,
      id: job.id,
      ...(error ? { error: String(error).slice(0, 200) } : {}),
    };
  });
  return () => workers.delete(runner);
}

/** The trail as plain data, times as seconds before now. */
export function processTrail(): unknown {
  const now = Date.now();
  const ago = (at: number | undefined) => (at === undefined ? null : Math.round((now - at) / 100) / 10);
  return {
    pools: [...pools].map((p) => ({ total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount })),
    workers: [...workers.values()].map((w) => ({
      startedSecondsAgo: ago(w.started),
      lastAskedSecondsAgo: ago(w.lastAsked),
      lastEmptySecondsAgo: ago(w.lastEmpty),
      running: w.running,
      lastStarted: w.lastStarted && { ...w.lastStarted, at: ago(w.lastStarted.at) },
      lastDone: w.lastDone && { ...w.lastDone, at: ago(w.lastDone.at) },
      lastError: w.lastError && { ...w.lastError, at: ago(w.lastError.at) },
    })),
  };
}
