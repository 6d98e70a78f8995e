/**
 * Herald's Prometheus metrics (prom-client), served at /metrics by http/metrics-server.ts when METRICS_PORT is set
 * (docs/operations.md, "Health and metrics"). The metrics live in one registry per process; the parts that feed them
 * import them from here. Everything fed on a hot path is a synchronous increment or observe; what costs more (the
 * job queue's depth, the spools' sizes) is read when Prometheus scrapes.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const metricsRegistry = new Registry();

/** API request durations by method, route pattern (never the raw URL) and status class (`2xx`…), fed by http/app.ts. */
export const requestDuration = new Histogram({
  name: 'herald_http_request_duration_seconds',
  help: 'Duration of API requests, by method, route pattern and status class',
  labelNames: ['method', 'route', 'status_class'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Messages handed to SMTP (or the built-in mailbox) and taken by it; `rate(…[1m])` is deliveries per second. */
export const deliveriesSent = new Counter({
  name: 'herald_deliveries_sent_total',
  help: 'Messages taken by the SMTP server (or the built-in mailbox) for delivery',
  registers: [metricsRegistry],
});

/**
 * A spool: items answered or accepted and waiting in memory to be written (the tracking hit buffer's hits). Each
 * says how many wait and when the oldest of them came in; both are read at scrape time.
 */
export interface Spool {
  size(): number;
  /** Date.now() of the oldest item not yet written; undefined when none waits. */
  oldestAtMs(): number | undefined;
}

const spools = new Map<string, Set<Spool>>();

/**
 * Add a spool to `herald_spool_size` and `herald_ingest_lag_seconds` under `name` (several of one name, such as the
 * hit buffers of several apps in one process, add up). Returns the function that takes it out again.
 */
export function registerSpool(name: string, spool: Spool): () => void {
  let named = spools.get(name);
  if (!named) spools.set(name, (named = new Set()));
  named.add(spool);
  return () => {
    named.delete(spool);
    if (named.size === 0 && spools.get(name) === named) spools.delete(name);
  };
}

new Gauge({
  name: 'herald_spool_size',
  help: 'Items waiting in memory to be written, by spool',
  labelNames: ['spool'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const [name, named] of spools) {
      let size = 0;
      for (const spool of named) size += spool.size();
      this.set({ spool: name }, size);
    }
  },
});

new Gauge({
  name: 'herald_ingest_lag_seconds',
  help: 'Age of the oldest item waiting in a spool to be written (0 when none waits), by spool',
  labelNames: ['spool'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    const now = Date.now();
    for (const [name, named] of spools) {
      let oldest: number | undefined;
      for (const spool of named) {
        const at = spool.oldestAtMs();
        if (at !== undefined && (oldest === undefined || at < oldest)) oldest = at;
      }
      this.set({ spool: name }, oldest === undefined ? 0 : Math.max(0, now - oldest) / 1000);
    }
  },
});

let defaultsCollected = false;

/**
 * prom-client's default metrics (process CPU, memory, handles, event loop lag, garbage collection), under their
 * standard names. Started with the first metrics server only: a process that serves no metrics runs no monitor.
 */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: metricsRegistry });
}
