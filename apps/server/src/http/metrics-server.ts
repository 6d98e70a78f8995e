/**
 * The metrics server: a small HTTP server of its own on METRICS_HOST:METRICS_PORT, in every role (a worker-only
 * process has no API port), started and stopped by app/server.ts. It answers `GET /metrics` (Prometheus' text format:
 * lib/prometheus.ts's registry and the job queue's depth, read now), and `/healthz` and `/readyz` as the API does, so
 * that a worker can be probed too. docs/operations.md, "Health and metrics".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { Gauge, Registry } from 'prom-client';
import { queueDepth, type QueueDepth } from '../jobs/queue-depth.ts';
import { collectProcessMetrics, metricsRegistry } from '../lib/prometheus.ts';
import { checkReadiness, readinessTimeoutMs } from './readiness.ts';

export interface MetricsServer {
  /** http://host:port */
  url: string;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  pool: pg.Pool;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The registry one metrics server serves: the process's metrics and the job queue of its database. */
function registryFor(pool: pg.Pool): Registry {
  const own = new Registry();
  new Gauge({
    name: 'herald_job_queue_depth',
    help: 'Jobs in the job queue, by state: ready (due, not taken), scheduled (due later), running, failed (out of attempts)',
    labelNames: ['state'] as const,
    registers: [own],
    async collect() {
      this.reset();
      let depth: QueueDepth;
      try {
        depth = await withTimeout(queueDepth(pool, readinessTimeoutMs), readinessTimeoutMs);
      } catch {
        // The database does not answer: no figure rather than a wrong one (and /readyz says why).
        return;
      }
      for (const [state, count] of Object.entries(depth)) this.set({ state }, count);
    },
  });
  return Registry.merge([metricsRegistry, own]);
}

const json = (response: http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  response
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
    })
    .end(text);
};

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  collectProcessMetrics();
  const registry = registryFor(options.pool);
  const answer = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    switch (path) {
      case '/metrics': {
        const text = await registry.metrics();
        response
          .writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' })
          .end(text);
        return;
      }
      case '/healthz':
        return json(response, 200, { ok: true });
      case '/readyz': {
        const readiness = await checkReadiness(options.pool);
        return json(response, readiness.ok ? 200 : 503, readiness);
      }
      default:
        return json(response, 404, { ok: false, error: `No route ${path}: /metrics, /healthz, /readyz.` });
    }
  };
  const server = http.createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        json(response, 500, { ok: false, error: error instanceof Error ? error.message : String(error) });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // A scraper's keep-alive connection would hold the close open until it timed out.
        server.closeIdleConnections();
      }),
  };
}
