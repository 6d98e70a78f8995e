import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDnsServer } from '../../apps/server/test/dns-server.ts';
import { startOpenAiStandin } from '../../apps/server/test/openai-standin.ts';
import { adminDatabaseUrl, createDatabase, dropDatabase } from '../../apps/server/test/test-database.ts';
import { until } from './until.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    /** A JSON file of the DNS zone the server's domain checks see (name → {TXT, CNAME}); journeys rewrite it. */
    dnsZoneFile: string;
    /** A directory holding one empty file per page state the automatic accessibility checks have checked this run. */
    checkedStatesDir: string;
  }
}

const root = path.resolve(import.meta.dirname, '../..');
/** The e2e server's secret (48 characters), so journeys can seal link tokens the server accepts. */
export const e2eSessionSecret = 'herald-e2e-session-secret-0123456789abcdefghijkl';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The real server (built web app, job worker, built-in mailbox) on a fresh database. */
export default async function setup(project: TestProject) {
  const webDist = process.env.WEB_DIST_DIR
    ? path.resolve(root, process.env.WEB_DIST_DIR)
    : path.join(root, 'apps/web/dist');
  if (!fs.existsSync(path.join(webDist, 'index.html'))) {
    throw new Error('The web app is not built: run `npm run build` first (npm run test:e2e does).');
  }
  const admin = await adminDatabaseUrl();
  const name = `herald_e2e_${process.pid}`;
  const databaseUrl = await createDatabase(admin.url, name);
  // Domain checks ask a loopback DNS server whose zone journeys write to a file (they run in other processes).
  const dnsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-e2e-dns-'));
  const dnsZoneFile = path.join(dnsDir, 'zone.json');
  fs.writeFileSync(dnsZoneFile, '{}');
  const dns = await startDnsServer({}, { zoneFile: dnsZoneFile });
  // The AI writer talks to a local OpenAI-compatible stand-in (ai-writer.journey.ts).
  const aiModel = await startOpenAiStandin();
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const output: string[] = [];
  const server: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/app/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: baseUrl,
      LOG_LEVEL: 'warn',
      SMTP_URL: '',
      TRUST_PROXY: 'true',
      SUPPORT_EMAIL: 'support@herald.test',
      // Plans, trial and limits are on, with no payment provider (billing.journey.ts; navigation's expired trial).
      BILLING_MODE: 'plans',
      SESSION_SECRET: e2eSessionSecret,
      DNS_SERVERS: dns.server,
      DNS_TIMEOUT_MS: '1000',
      // Journeys run their webhook receivers on loopback (flow-webhook-tester.journey.ts).
      OUTGOING_TRUSTED_ADDRESSES: '127.0.0.1',
      // apps.journey.ts connects Slack to a stand-in on loopback.
      SLACK_WEBHOOK_HOSTS: 'hooks.slack.com,127.0.0.1',
      AI_BASE_URL: aiModel.baseUrl,
      AI_API_KEY: 'e2e-ai-key',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  server.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  const started = await until(
    async () =>
      server.exitCode !== null ? 'stopped' : (await fetch(`${baseUrl}/v1/heartbeat`)).ok && 'answering',
    { timeout: 60_000, interval: 250, message: () => `the server started:\n${output.join('')}\n` },
  );
  if (started === 'stopped') throw new Error(`the server stopped while starting:\n${output.join('')}`);
  project.provide('baseUrl', baseUrl);
  project.provide('databaseUrl', databaseUrl);
  project.provide('dnsZoneFile', dnsZoneFile);
  const checkedStatesDir = path.join(dnsDir, 'checked-states');
  fs.mkdirSync(checkedStatesDir);
  project.provide('checkedStatesDir', checkedStatesDir);
  return async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await dropDatabase(admin.url, name);
    await admin.stop();
    await dns.close();
    await aiModel.close();
    fs.rmSync(dnsDir, { recursive: true, force: true });
  };
}
