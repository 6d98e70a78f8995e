import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { adHocEmailId } from '@herald/contracts';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app/build-app.ts';
import { startServer } from '../src/app/server.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/connection.ts';
import { HitBuffer } from '../src/features/tracking/hit-buffer.ts';
import { startMetricsServer, type MetricsServer } from '../src/http/metrics-server.ts';
import { registerReadinessCheck } from '../src/http/readiness.ts';
import { newEmail } from './email-helpers.ts';
import {
  Client,
  createTestContext,
  publicUrl,
  registerUser,
  testDatabaseUrl,
  uniqueEmail,
  type TestContext,
} from './helpers.ts';
import { until } from './until.ts';

/**
 * Health and metrics (docs/operations.md, "Health and metrics"): /healthz and /readyz on the API, the registry of
 * readiness checks, and the metrics server's /metrics in Prometheus' text format, read back with a parser of that
 * format (a line it does not accept throws).
 */
let ctx: TestContext;
let metrics: MetricsServer;
beforeAll(async () => {
  ctx = await createTestContext();
  metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, pool: ctx.database.pool });
});
afterAll(async () => {
  await metrics.close();
  await ctx.close();
});

interface Scrape {
  /** What the text-format parser made of it (it throws on a line that is not the format). */
  families: ReturnType<typeof parsePrometheusTextFormat>;
  /** Every sample line: its name (with _bucket, _count, _sum), labels and value. */
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

async function scrape(url = metrics.url): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = parsePrometheusTextFormat(text);
  // The parser folds a labelled histogram's series into one: the samples are read from the lines themselves.
  const samples = text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [, name, labelText, value] = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      const labels = Object.fromEntries(
        [...(labelText ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, text]) => [key!, text!]),
      );
      return { name: name!, labels, value: Number(value) };
    });
  return { families, samples };
}

/** The value of a sample whose labels include `labels`; NaN when there is none. */
const valueOf = ({ samples }: Scrape, name: string, labels: Record<string, string> = {}) =>
  samples.find(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )?.value ?? Number.NaN;

/** Requests the latency histogram has counted for one route pattern (0 before the first). */
async function requestsCounted(route: string, statusClass: string, method = 'GET'): Promise<number> {
  const count = valueOf(await scrape(), 'herald_http_request_duration_seconds_count', {
    method,
    route,
    status_class: statusClass,
  });
  return Number.isNaN(count) ? 0 : count;
}

describe('/healthz and /readyz on the API', () => {
  it('/healthz answers that the process is alive', async () => {
    const res = await new Client(ctx.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });

  it('/readyz answers 200 when PostgreSQL answers and no check fails', async () => {
    const res = await new Client(ctx.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, checks: { database: 'ok' } });
  });

  it('/readyz answers 503 naming a registered check while it fails, a hanging one after the time-out, and 200 once it passes', async () => {
    let state: 'fail' | 'hang' | 'pass' = 'fail';
    const unregister = registerReadinessCheck('eventStore', async () => {
      if (state === 'fail') throw new Error('ping refused');
      if (state === 'hang') await new Promise((resolve) => setTimeout(resolve, 3000));
    });
    try {
      const failing = await new Client(ctx.app).get('/readyz');
      expect(failing.status).toBe(503);
      expect(failing.body).toEqual({ ok: false, checks: { database: 'ok', eventStore: 'ping refused' } });

      state = 'hang';
      const started = Date.now();
      const hanging = await new Client(ctx.app).get('/readyz');
      expect(hanging.status).toBe(503);
      expect(hanging.body.checks.eventStore).toBe('no answer within 2000 ms');
      expect(Date.now() - started).toBeLessThan(5000);

      state = 'pass';
      // The hanging run is still under way (shared by the probes meanwhile); the next run after it passes.
      await until(async () => (await new Client(ctx.app).get('/readyz')).status === 200, {
        timeout: 15_000,
        interval: 500,
        message: 'the check to pass again',
      });
      const passing = await new Client(ctx.app).get('/readyz');
      expect(passing.body).toEqual({ ok: true, checks: { database: 'ok', eventStore: 'ok' } });
    } finally {
      unregister();
    }
    expect((await new Client(ctx.app).get('/readyz')).body.checks).toEqual({ database: 'ok' });
  });

  it('refuses a second check of the same name', () => {
    const unregister = registerReadinessCheck('twice', async () => undefined);
    try {
      expect(() => registerReadinessCheck('twice', async () => undefined)).toThrow(/already registered/);
      expect(() => registerReadinessCheck('database', async () => undefined)).toThrow(/already registered/);
    } finally {
      unregister();
    }
  });

  it('without a database: /healthz still answers 200, /readyz answers 503 naming the database', async () => {
    const away = openDatabase('postgres://postgres@127.0.0.1:1/nowhere', 1);
    const app = await buildApp({ ...ctx.services, db: away.db, pool: away.pool });
    try {
      const health = await new Client(app).get('/healthz');
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ ok: true });
      const ready = await new Client(app).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.ok).toBe(false);
      expect(ready.body.checks.database).toMatch(/ECONNREFUSED|connect/);
    } finally {
      await app.close();
      await away.close();
    }
  });

  it('both are in the OpenAPI document', async () => {
    const res = await new Client(ctx.app).get('/v1/openapi.json');
    expect(res.body.paths['/healthz']?.get).toBeDefined();
    expect(res.body.paths['/readyz']?.get).toBeDefined();
  });
});

describe('the metrics server', () => {
  it('answers /metrics in the text format with every metric of Herald and the process', async () => {
    // A request, so that the latency histogram has a series.
    await new Client(ctx.app).get('/v1/config');
    const scraped = await scrape();
    const types = Object.fromEntries(scraped.families.map((family) => [family.name, family.type]));
    expect(types).toMatchObject({
      herald_http_request_duration_seconds: 'HISTOGRAM',
      herald_job_queue_depth: 'GAUGE',
      herald_deliveries_sent_total: 'COUNTER',
      herald_ingest_lag_seconds: 'GAUGE',
      herald_spool_size: 'GAUGE',
      // prom-client's default metrics.
      process_cpu_seconds_total: 'COUNTER',
      process_resident_memory_bytes: 'GAUGE',
      nodejs_eventloop_lag_seconds: 'GAUGE',
      nodejs_heap_size_used_bytes: 'GAUGE',
    });
    expect(
      valueOf(scraped, 'herald_http_request_duration_seconds_count', { method: 'GET', route: '/v1/config' }),
    ).toBeGreaterThanOrEqual(1);
    for (const state of ['ready', 'scheduled', 'running', 'failed'])
      expect(valueOf(scraped, 'herald_job_queue_depth', { state }), state).toBeGreaterThanOrEqual(0);
    expect(valueOf(scraped, 'herald_deliveries_sent_total')).toBeGreaterThanOrEqual(0);
    // The app's hit buffer is a spool.
    expect(valueOf(scraped, 'herald_spool_size', { spool: 'tracking_hits' })).toBeGreaterThanOrEqual(0);
    expect(valueOf(scraped, 'herald_ingest_lag_seconds', { spool: 'tracking_hits' })).toBeGreaterThanOrEqual(
      0,
    );
  });

  it('counts a request under its route pattern, not its URL', async () => {
    const configBefore = await requestsCounted('/v1/config', '2xx');
    const personBefore = await requestsCounted('/v1/people/:id', '4xx');
    await new Client(ctx.app).get('/v1/config');
    await new Client(ctx.app).get('/v1/config');
    // Without a session: 401, under the pattern with :id.
    expect((await new Client(ctx.app).get('/v1/people/4242')).status).toBe(401);
    await until(async () => (await requestsCounted('/v1/config', '2xx')) === configBefore + 2, {
      timeout: 5000,
      message: 'two more GET /v1/config in the histogram',
    });
    expect(await requestsCounted('/v1/people/:id', '4xx')).toBe(personBefore + 1);
    // A path no route has: one series for all of them, whatever the path.
    const unmatchedBefore = await requestsCounted('unmatched', '4xx');
    expect((await new Client(ctx.app).get('/v1/no-such-route/4242')).status).toBe(404);
    await until(async () => (await requestsCounted('unmatched', '4xx')) === unmatchedBefore + 1, {
      timeout: 5000,
      message: 'the 404 under route="unmatched"',
    });
    const routes = (await scrape()).samples.map((sample) => sample.labels.route ?? '');
    expect(routes.filter((route) => route.includes('4242'))).toEqual([]);
  });

  it('reads the job queue when scraped: jobs due now are ready, jobs due later are scheduled', async () => {
    const before = await scrape();
    const key = `metrics-test-${Date.now()}`;
    const keys = [`${key}-now-1`, `${key}-now-2`, `${key}-later`];
    // A task no worker knows: the jobs stay where they are. Two due now, one in an hour.
    for (const job of keys.slice(0, 2))
      await sql`select graphile_worker.add_job('metrics-test-task', '{}'::json, job_key => ${job})`.execute(
        ctx.services.db,
      );
    await sql`select graphile_worker.add_job('metrics-test-task', '{}'::json, job_key => ${keys[2]}, run_at => now() + interval '1 hour')`.execute(
      ctx.services.db,
    );
    try {
      const after = await scrape();
      const added = (state: string) =>
        valueOf(after, 'herald_job_queue_depth', { state }) -
        valueOf(before, 'herald_job_queue_depth', { state });
      expect({ ready: added('ready'), scheduled: added('scheduled') }).toEqual({ ready: 2, scheduled: 1 });
    } finally {
      for (const job of keys) await sql`select graphile_worker.remove_job(${job})`.execute(ctx.services.db);
    }
  });

  it('shows the hits waiting in a spool and the age of the oldest; both go back once written', async () => {
    const owner = await registerUser(ctx.app);
    const buffer = new HitBuffer(ctx.database.pool, { flushMs: 60_000, flushRows: 1000 });
    const before = await scrape();
    const size = () => valueOf(before, 'herald_spool_size', { spool: 'tracking_hits' });
    try {
      for (let i = 0; i < 3; i++)
        buffer.add({
          ref: {
            accountId: owner.account.accountId as number,
            deliveryId: 1,
            personId: 1_000_000 + i,
            emailId: 1,
            sourceKind: 'broadcast',
            sourceId: 1,
            variant: 0,
            sentAt: 0,
          },
          name: 'opened',
          link: null,
          agent: 'desktop',
          machine: false,
          // Answered 30 s ago.
          atMs: Date.now() - 30_000,
        });
      const waiting = await scrape();
      expect(valueOf(waiting, 'herald_spool_size', { spool: 'tracking_hits' })).toBe(size() + 3);
      expect(
        valueOf(waiting, 'herald_ingest_lag_seconds', { spool: 'tracking_hits' }),
      ).toBeGreaterThanOrEqual(30);
    } finally {
      await buffer.close();
    }
    expect(buffer.written).toBe(3);
    const written = await scrape();
    expect(valueOf(written, 'herald_spool_size', { spool: 'tracking_hits' })).toBe(size());
    expect(valueOf(written, 'herald_ingest_lag_seconds', { spool: 'tracking_hits' })).toBeLessThan(30);
  });

  it('counts the messages handed to SMTP (here the built-in mailbox) in herald_deliveries_sent_total', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const fromEmail = uniqueEmail('sender');
    await ctx.services.db
      .insertInto('senderAddresses')
      .values({ accountId, email: fromEmail, status: 'verified', verifiedAt: new Date() })
      .execute();
    expect((await owner.client.post('/v1/emails', newEmail({ fromEmail }))).status).toBe(201);
    const apiKey = (await owner.client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
    const before = valueOf(await scrape(), 'herald_deliveries_sent_total');
    await ctx.startWorker();
    const sent = await new Client(ctx.app).post(
      '/v1/transactional/send',
      { emailId: adHocEmailId, to: uniqueEmail('reader'), subject: 'Counted', html: '<p>Counted.</p>' },
      { origin: null, headers: { authorization: `Bearer ${apiKey}` } },
    );
    expect(sent.status).toBe(200);
    await until(async () => valueOf(await scrape(), 'herald_deliveries_sent_total') === before + 1, {
      timeout: 30_000,
      message: 'one more message in herald_deliveries_sent_total',
    });
  });

  it('answers /healthz and /readyz as the API does, and 404 elsewhere', async () => {
    const health = await fetch(`${metrics.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const ready = await fetch(`${metrics.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true, checks: { database: 'ok' } });
    const unregister = registerReadinessCheck('eventStore', () => Promise.reject(new Error('down')));
    try {
      const notReady = await fetch(`${metrics.url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ ok: false, checks: { database: 'ok', eventStore: 'down' } });
    } finally {
      unregister();
    }
    expect((await fetch(`${metrics.url}/v1/config`)).status).toBe(404);
  });
});

describe('startServer and METRICS_PORT', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-metrics-test-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const freePort = () =>
    new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });

  const configWith = (env: Record<string, string>) =>
    loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: testDatabaseUrl(),
      PUBLIC_URL: publicUrl,
      LOG_LEVEL: 'silent',
      SESSION_SECRET: 'test-secret-test-secret-test-secret-0123456789',
      DATA_DIR: dataDir,
      WEB_DIST_DIR: '/nonexistent',
      HOST: '127.0.0.1',
      ...env,
    });

  it('starts no metrics server when METRICS_PORT is unset', async () => {
    const config = configWith({ PORT: String(await freePort()) });
    expect(config.metrics).toBeUndefined();
    const server = await startServer(config, 'api', () => undefined);
    try {
      expect(server.url).toBeDefined();
      expect(server.metricsUrl).toBeUndefined();
    } finally {
      await server.stop();
    }
  });

  it('a worker-only process serves /metrics, /healthz and /readyz on METRICS_PORT, and stop closes it', async () => {
    const port = await freePort();
    const config = configWith({ PORT: String(await freePort()), METRICS_PORT: String(port) });
    const server = await startServer(config, 'worker', () => undefined);
    let stopped = false;
    try {
      expect(server.url).toBeUndefined();
      expect(server.metricsUrl).toBe(`http://127.0.0.1:${port}`);
      const { families } = await scrape(server.metricsUrl);
      expect(families.some((family) => family.name === 'herald_job_queue_depth')).toBe(true);
      expect((await fetch(`${server.metricsUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.metricsUrl}/readyz`)).status).toBe(200);
      await server.stop();
      stopped = true;
      await expect(fetch(`${server.metricsUrl}/healthz`)).rejects.toThrow();
    } finally {
      if (!stopped) await server.stop();
    }
  });
});
