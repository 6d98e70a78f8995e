import type { FastifyInstance } from 'fastify';
import type { Runner } from 'graphile-worker';
import type { Config, Role } from '../config.ts';
import { connectDatabase } from '../db/database.ts';
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

export interface RunningServer {
  app: FastifyInstance | undefined;
  services: Services;
  /** The address the API listens on, when it does. */
  url: string | undefined;
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
  const services: Services = {
    db: database.db,
    pool: database.pool,
    config,
    secret,
    google: createGoogleVerifier(config.google),
    storage: config.s3
      ? createS3Storage(config.s3)
      : createLocalStorage(config.dataDir, config.publicUrl, secret),
  };
  const mailer = createMailer(database.db, config, (accountId, domainId) =>
    dkimKeyOf(services, database.db, accountId, domainId),
  );
  let runner: Runner | undefined;
  let app: FastifyInstance | undefined;
  let url: string | undefined;
  let inbound: InboundSmtp | undefined;
  try {
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
    await inbound?.close();
    await runner?.stop();
    await database.close();
    throw error;
  }
  return {
    app,
    services,
    url,
    stop: async () => {
      await app?.close();
      await inbound?.close();
      await runner?.stop();
      mailer.close();
      await closeSenderPools();
      await database.close();
    },
  };
}
