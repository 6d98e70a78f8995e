import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Runner } from 'graphile-worker';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../src/config.ts';
import { openDatabase, type DatabaseHandle } from '../src/db/connection.ts';
import { createGoogleVerifier } from '../src/features/auth/google.ts';
import { buildApp } from '../src/app/build-app.ts';
import { startWorker } from '../src/app/worker.ts';
import { createMailer, type Mailer } from '../src/mail/mailer.ts';
import { dkimKeyOf } from '../src/features/domains/domains.service.ts';
import { closeSenderPools } from '../src/features/deliveries/sender-pool.ts';
import type { Services } from '../src/services.ts';
import { createLocalStorage } from '../src/lib/storage.ts';
import { openEventStore } from '../src/db/event-stores.ts';
import type { PageCursor, StoredEvent } from '../src/db/event-store.ts';
import { withAccount } from '../src/db/tenancy.ts';
import { tracePool, traceWorker } from './process-trail.ts';

export const publicUrl = 'http://localhost:3000';

/**
 * This worker slot's database (global-setup.ts makes one per slot): files that run at the same time use different
 * databases, files of one slot share one, one after another.
 */
export function testDatabaseUrl(): string {
  const urls = inject('databaseUrls');
  const slot = Number(process.env.VITEST_POOL_ID ?? '1');
  return urls[(Math.max(1, slot) - 1) % urls.length]!;
}

const testDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-test-data-'));

/**
 * HERALD_TEST_EVENT_STORE=clickhouse runs the suite's servers on the ClickHouse store, the engine embedded in this
 * worker (`npm run test:clickhouse` runs the event-reading suites so: the same tests, the same answers). A context
 * whose env names a store keeps it.
 */
function eventStoreEnv(): Record<string, string> {
  if (process.env.HERALD_TEST_EVENT_STORE !== 'clickhouse') return {};
  return { EVENT_STORE: 'clickhouse', CLICKHOUSE_URL: `chdb:${path.join(testDataDir, 'clickhouse')}` };
}

export interface TestContext {
  app: FastifyInstance;
  services: Services;
  database: DatabaseHandle;
  config: Config;
  mailer: Mailer;
  /** Start the job worker (for tests that need mail to leave). */
  startWorker(): Promise<Runner>;
  close(): Promise<void>;
}

/** A real app on the run's test database; env overrides the configuration (SMTP_URL, GOOGLE_*...). */
export async function createTestContext(env: Record<string, string> = {}): Promise<TestContext> {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: testDatabaseUrl(),
    PUBLIC_URL: publicUrl,
    LOG_LEVEL: 'silent',
    SESSION_SECRET: 'test-secret-test-secret-test-secret-0123456789',
    DATA_DIR: testDataDir,
    WEB_DIST_DIR: '/nonexistent',
    ...eventStoreEnv(),
    ...env,
  });
  const database = openDatabase(config.databaseUrl!, 5);
  const eventStore = await openEventStore(config, database.pool, () => undefined);
  const services: Services = {
    db: database.db,
    pool: database.pool,
    config,
    secret: config.sessionSecret!,
    google: createGoogleVerifier(config.google),
    storage: createLocalStorage(config.dataDir, config.publicUrl, config.sessionSecret!),
    events: eventStore.store,
  };
  eventStore.store.start();
  const app = await buildApp(services);
  const mailer = createMailer(database.db, config, (accountId, domainId) =>
    dkimKeyOf(services, database.db, accountId, domainId),
  );
  const runners: Runner[] = [];
  const untracePool = tracePool(database.pool);
  const untrace: Array<() => void> = [untracePool];
  return {
    app,
    services,
    database,
    config,
    mailer,
    startWorker: async () => {
      const runner = await startWorker(database.pool, { ...services, mailer }, 2);
      runners.push(runner);
      untrace.push(traceWorker(runner));
      return runner;
    },
    close: async () => {
      for (const runner of runners) await runner.stop();
      for (const forget of untrace) forget();
      await app.close();
      mailer.close();
      await closeSenderPools();
      await eventStore.close();
      await database.close();
    },
  };
}

/**
 * Every event of an account, oldest first, read through the configured event store (on ClickHouse, after the spool
 * is forwarded): the tests that check what was recorded read it the way the product does.
 */
export async function storedEvents(services: Services, accountId: number): Promise<StoredEvent[]> {
  await services.events.settle();
  return withAccount(services.db, accountId, async (db) => {
    const out: StoredEvent[] = [];
    let after: PageCursor | undefined;
    for (;;) {
      const rows = await services.events.page(db, accountId, {}, after, 1000);
      out.push(...rows.slice(0, 1000));
      if (rows.length <= 1000) break;
      after = rows[999]!;
    }
    return out.sort((a, b) => a.id - b.id);
  });
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
  /** name=value pairs of Set-Cookie, ready for a Cookie header. */
  cookie: string | undefined;
  setCookie: string[];
}

/** A browser-like client: keeps its cookie, sends a same-origin Origin, from its own loopback address. */
export class Client {
  cookie: string | undefined;
  /** The other cookies the server set (the pending second factor, a remembered device), name to value. */
  readonly otherCookies = new Map<string, string>();
  readonly remoteAddress = `127.${rand()}.${rand()}.${rand()}`;
  /** The Origin its requests carry: the app's PUBLIC_URL (a context started with another PUBLIC_URL passes it). */
  constructor(
    private readonly app: FastifyInstance,
    readonly origin: string = publicUrl,
  ) {}

  async request<T = any>(
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    options: {
      body?: unknown;
      rawBody?: string;
      headers?: Record<string, string>;
      origin?: string | null;
    } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.origin !== null) headers.origin = options.origin ?? this.origin;
    const cookies = [
      ...(this.cookie ? [this.cookie] : []),
      ...[...this.otherCookies].map(([name, value]) => `${name}=${value}`),
    ];
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    if (options.body !== undefined || options.rawBody !== undefined)
      headers['content-type'] ??= 'application/json';
    const res = await this.app.inject({
      method,
      url,
      headers,
      remoteAddress: this.remoteAddress,
      ...(options.rawBody !== undefined
        ? { payload: options.rawBody }
        : options.body !== undefined
          ? { payload: JSON.stringify(options.body) }
          : {}),
    });
    const setCookie = ([] as string[]).concat(
      (res.headers['set-cookie'] as string | string[] | undefined) ?? [],
    );
    const session = setCookie.find((c) => c.startsWith('herald_session='));
    if (session) {
      const pair = session.split(';')[0]!;
      this.cookie = pair === 'herald_session=' ? undefined : pair;
    }
    for (const other of setCookie.filter((c) => !c.startsWith('herald_session='))) {
      const pair = other.split(';')[0]!;
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      if (value === '' || /max-age=0\b|expires=thu, 01 jan 1970/i.test(other)) this.otherCookies.delete(name);
      else this.otherCookies.set(name, value);
    }
    let body: unknown = res.body;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      // not JSON
    }
    return {
      status: res.statusCode,
      body: body as T,
      headers: res.headers,
      cookie: session?.split(';')[0],
      setCookie,
    };
  }

  get<T = any>(url: string, options?: Parameters<Client['request']>[2]) {
    return this.request<T>('GET', url, options);
  }
  post<T = any>(url: string, body?: unknown, options?: Parameters<Client['request']>[2]) {
    return this.request<T>('POST', url, { ...options, body });
  }
  patch<T = any>(url: string, body?: unknown, options?: Parameters<Client['request']>[2]) {
    return this.request<T>('PATCH', url, { ...options, body });
  }
}

function rand(): number {
  return 1 + crypto.randomInt(250);
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${crypto.randomBytes(6).toString('hex')}@example.com`;
}

export const registrationDetails = {
  name: 'Ada Lovelace',
  phone: '+44 20 7946 0000',
  site: 'https://analytical.example.com',
  industry: 'SaaS',
  estimatedContacts: '1,000 - 2,000',
  goals: 'Welcome new sign-ups and win back quiet customers.',
  previousTool: 'Spreadsheets',
};

/** Register through the same calls the wizard makes; returns a signed-in client. */
export async function registerUser(
  app: FastifyInstance,
  options: { email?: string; password?: string; origin?: string } = {},
) {
  const client = new Client(app, options.origin);
  const email = options.email ?? uniqueEmail();
  const password = options.password ?? 'correct horse battery';
  const created = await client.post('/v1/accounts/', { email, source: 'test', timezone: 'Europe/London' });
  if (created.status !== 201) throw new Error(`registration failed: ${JSON.stringify(created.body)}`);
  await client.patch('/v1/accounts/me', { name: registrationDetails.name });
  await client.patch('/v1/accounts/me', { phone: registrationDetails.phone });
  const { name: _n, phone: _p, goals: _g, previousTool: _t, ...company } = registrationDetails;
  await client.patch('/v1/accounts/me', company);
  await client.patch('/v1/accounts/me', {
    goals: registrationDetails.goals,
    previousTool: registrationDetails.previousTool,
    flags: { hasFilledGoals: true },
  });
  const done = await client.post('/v1/accounts/initial-password', { password });
  if (done.status !== 200) throw new Error(`initial password failed: ${JSON.stringify(done.body)}`);
  return { client, email, password, account: done.body };
}
