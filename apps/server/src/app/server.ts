import type { FastifyInstance } from 'fastify';
import type { Runner } from 'graphile-worker';
import type { Config, Role } from '../config.ts';
import { connectDatabase } from '../db/database.ts';
import { openEventStore } from '../db/event-stores.ts';
import { createGoogleVerifier } from '../features/auth/google.ts';
import { buildApp } from './build-app.ts';
import { prepareJobQueue } from '../jobs/runner.ts';
import { startWorker } from './worker.ts';
import { createMailer } from '../mail/mailer.ts';
import { closeSenderPools } from '../features/deliveries/sender-pool.ts';
import { resolveSecret } from '../secret.ts';
import { createLocalStorage, createS3Storage } from '../lib/storage.ts';
import { dkimKeyOf } from '../features/domains/domains.service.ts';
import type { Services } from '../services.ts';
import { startInboundSmtp, type InboundSmtp } from '../features/bounces/inbound-smtp.ts';
import { startMetricsServer, type MetricsServer } from '../http/metrics-server.ts';

export interface RunningServer {
  app: FastifyInstance | undefined;
  services: Services;
  /** The address the API listens on, when it does. */
  url: string | undefined;
  /** The address of the metrics server (/metrics, /healthz, /readyz), when METRICS_PORT is set. */
  metricsUrl: string | undefined;
  stop(): Promise<void>;
}

/** Start the roles asked for on one database: the API, the job worker, or both. */
export async function startServer(
  config: Config,
  role: Role,
  log: (m: string) => void = console.log,
): Promise<RunningServer> {
  const database = await connectDatabase(config, log);
  await prepareJobQueue(database.pool);
  const secret = resolveSecret(config);
  let eventStore: Awaited<ReturnType<typeof openEventStore>>;
  try {
    eventStore = await openEventStore(config, database.pool, log);
  } catch (error) {
    await database.close();
    throw error;
  }
  const services: Services = {
    db: database.db,
    pool: database.pool,
    config,
    secret,
    google: createGoogleVerifier(config.google),
    storage: config.s3
      ? createS3Storage(config.s3)
      : createLocalStorage(config.dataDir, config.publicUrl, secret),
    events: eventStore.store,
  };
  // The ClickHouse store's forwarder runs in every role; one process at a time moves the spool.
  eventStore.store.start();
  const mailer = createMailer(database.db, config, (accountId, domainId) =>
    dkimKeyOf(services, database.db, accountId, domainId),
  );
  let runner: Runner | undefined;
  let app: FastifyInstance | undefined;
  let url: string | undefined;
  let inbound: InboundSmtp | undefined;
  let metrics: MetricsServer | undefined;
  try {
    // In every role: a worker-only process is scraped and probed here (http/metrics-server.ts).
    if (config.metrics) {
      metrics = await startMetricsServer({ ...config.metrics, pool: database.pool });
      log(`Metrics at ${metrics.url}/metrics`);
    }
    if (role !== 'api')
      runner = await startWorker(database.pool, { ...services, mailer }, config.workerConcurrency);
    // The bounce mailbox runs beside the API (INBOUND_SMTP_PORT); reports it takes are recorded straight away.
    if (role !== 'worker' && config.bounces.inboundSmtpPort !== undefined) {
      inbound = await startInboundSmtp(services, {
        port: config.bounces.inboundSmtpPort,
        host: config.host,
        log: (line, detail) => log(detail ? `${line} ${JSON.stringify(detail)}` : line),
      });
      log(`Bounce intake listening for SMTP on port ${inbound.port}`);
    }
    if (role !== 'worker') {
      app = await buildApp(services);
      url = await app.listen({ port: config.port, host: config.host });
    }
  } catch (error) {
    await app?.close();
    await metrics?.close();
    await inbound?.close();
    await runner?.stop();
    await eventStore.close();
    await database.close();
    throw error;
  }
  return {
    app,
    services,
    url,
    metricsUrl: metrics?.url,
    stop: async () => {
      await app?.close();
      await inbound?.close();
      await runner?.stop();
      mailer.close();
      await closeSenderPools();
      await eventStore.close();
      // Last of the servers: a scrape or a probe still answers while the work in hand finishes.
      await metrics?.close();
      await database.close();
    },
  };
}
