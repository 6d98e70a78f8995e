/**
 * Readiness: whether this process can do its work now. `GET /readyz` (the API's, features/system/system.routes.ts,
 * and the metrics server's, metrics-server.ts) answers 200 when PostgreSQL answers a `select 1` and every check
 * registered here passes, and 503 naming what failed otherwise. A part of the server that needs something else to
 * work (the event store, a ping of its database) registers a named check, from the composition root or when it
 * starts. docs/operations.md, "Health and metrics".
 */
import type pg from 'pg';

/** Resolves when the thing it checks answers; rejects (its message is shown) when it does not. */
export type ReadinessCheck = () => Promise<unknown>;

export interface Readiness {
  ok: boolean;
  /** Each check's name: `ok`, or what failed. */
  checks: Record<string, string>;
}

/** How long each check may take before it counts as failed. */
export const readinessTimeoutMs = 2000;

const checks = new Map<string, ReadinessCheck>();

/**
 * Add a named check to every readiness answer of this process. Returns the function that takes it out again. A name
 * is registered once (`database` is the built-in one).
 */
export function registerReadinessCheck(name: string, check: ReadinessCheck): () => void {
  if (name === 'database' || checks.has(name))
    throw new Error(`A readiness check named ${name} is already registered.`);
  checks.set(name, check);
  return () => {
    if (checks.get(name) === check) checks.delete(name);
  };
}

/**
 * A check's run under way, shared by the probes that come meanwhile: when what it waits for hangs (a database that
 * does not answer), probes every second add no more waiters than one.
 */
const running = new WeakMap<object, Promise<unknown>>();

function runOnce(key: object, check: ReadinessCheck): Promise<unknown> {
  let run = running.get(key);
  if (!run) {
    run = Promise.resolve()
      .then(check)
      .finally(() => running.delete(key));
    running.set(key, run);
  }
  return run;
}

async function outcome(key: object, check: ReadinessCheck, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([
      runOnce(key, check).then(
        () => 'ok',
        (error: unknown) => (error instanceof Error ? error.message : String(error)) || 'failed',
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Ask PostgreSQL (`select 1` on the pool) and every registered check, at once, each for at most `timeoutMs`. */
export async function checkReadiness(pool: pg.Pool, timeoutMs = readinessTimeoutMs): Promise<Readiness> {
  const all: [string, object, ReadinessCheck][] = [
    ['database', pool, () => pool.query({ text: 'select 1', query_timeout: timeoutMs } as pg.QueryConfig)],
    ...[...checks].map(([name, check]): [string, object, ReadinessCheck] => [name, check, check]),
  ];
  const answers = await Promise.all(all.map(([, key, check]) => outcome(key, check, timeoutMs)));
  const result: Readiness = { ok: true, checks: {} };
  all.forEach(([name], index) => {
    result.checks[name] = answers[index]!;
    if (answers[index] !== 'ok') result.ok = false;
  });
  return result;
}
