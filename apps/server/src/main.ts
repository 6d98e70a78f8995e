import { ConfigError, loadConfig, parseRole } from './config.ts';
import { startServer } from './server.ts';

/** Entry point: `tsx src/main.ts [--role=all|api|worker]`. */
try {
  const config = loadConfig();
  const role = parseRole(process.argv.slice(2));
  const server = await startServer(config, role);
  if (server.url) console.log(`Herald is running at ${config.publicUrl} (role ${role}${config.useDevMailbox ? `; mail goes to ${config.publicUrl}/dev/mailbox` : ''})`);
  else console.log(`Herald worker is running (role ${role})`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: shutting down`);
    server.stop().then(
      () => process.exit(0),
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
