import v8 from 'node:v8';
import { ConfigError, loadConfig, parseRole } from '../config.ts';
import { useJsonLogs } from '../log-format.ts';
import { keepRunningOnConnectionLoss } from '../lib/connection-loss.ts';
import { startServer } from './server.ts';

// The old generation may grow by a quarter before a full collection, not by V8's default of up to four times: a
// long send or import makes short-lived garbage at a steady rate, and without this the process's memory climbs
// until the end of the job. Full collections of a heap this size take milliseconds (broadcast-100k: same CPU).
v8.setFlagsFromString('--heap-growing-percent=25');

// In production every log line is JSON, the configuration errors included.
if (process.env.NODE_ENV === 'production') useJsonLogs();

// A PostgreSQL restart is not fatal: the job queue's unawaited writes that fail meanwhile are logged (lib/connection-loss.ts).
keepRunningOnConnectionLoss();

/** Entry point: `node dist/main.js` (built) or `tsx src/app/main.ts` (dev), with `--role=all|api|worker`. */
try {
  const config = loadConfig();
  const role = parseRole(process.argv.slice(2));
  if (config.smtpUrl && !config.smtpTls.verify)
    console.warn(
      `SMTP_TLS_VERIFY=false: the certificate of the relay at ${new URL(config.smtpUrl).host} is not checked (allowed for a relay on this host only)`,
    );
  const server = await startServer(config, role);
  if (server.url)
    console.log(
      `Herald is running at ${config.publicUrl} (role ${role}${config.useDevMailbox ? `; mail goes to ${config.publicUrl}/dev/mailbox` : ''})`,
    );
  else console.log(`Herald worker is running (role ${role})`);
  let stopping = false;
  // SIGTERM: stop taking requests and jobs, let the ones in hand finish (a send's batches are sent and recorded,
  // the rest handed back to the queue), then exit. Past SHUTDOWN_TIMEOUT_MS the process exits anyway: what is left
  // is leased and taken up again, exactly as after a crash.
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: finishing requests and jobs in hand, then stopping`);
    const started = Date.now();
    setTimeout(() => {
      console.error(
        `Still stopping after ${config.shutdownTimeoutMs} ms: exiting; work in hand will be taken up again`,
      );
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    server.stop().then(
      () => {
        console.log(`Stopped cleanly in ${Date.now() - started} ms`);
        process.exit(0);
      },
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
