import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { writeFigure } from '../figures.ts';
import { createTestContext, registerUser, type TestContext } from '../helpers.ts';
import { startSmtpServer } from '../smtp.ts';
import {
  startSsrfDns,
  startTargets,
  startTrustedReceiver,
  type SsrfDnsEntry,
  type Targets,
} from './ssrf-net.ts';
import { hostileZone } from './ssrf-payloads.ts';

/**
 * What both SSRF test files share: the counting targets, the trusted receiver and redirector, the DNS server (its
 * zone can be changed while the test runs), a server under test that trusts only 127.0.0.2 and resolves names through
 * that DNS server, with a worker, and an account. Every test ends with 0 connections on the targets.
 */
export interface SsrfWorld {
  ctx: TestContext;
  targets: Targets;
  receiver: Awaited<ReturnType<typeof startTrustedReceiver>>;
  dns: Awaited<ReturnType<typeof startSsrfDns>>;
  zone: Record<string, SsrfDnsEntry>;
  owner: Awaited<ReturnType<typeof registerUser>>;
  /** Hostile calls made so far (each API call or job call given a hostile address). */
  attempts: number;
}

const figuresDir = path.join(
  process.env.HERALD_FIGURES_DIR ?? path.resolve(import.meta.dirname, '../../../../.figures'),
  'security',
  'ssrf-parts',
);
const parts = ['save', 'run'];

export function useSsrfWorld(part: 'save' | 'run'): SsrfWorld {
  const world = { attempts: 0, zone: { ...hostileZone } } as SsrfWorld;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let tests = 0;
  let passed = 0;
  beforeAll(async () => {
    world.targets = await startTargets();
    world.receiver = await startTrustedReceiver(world.targets.port);
    world.dns = await startSsrfDns(world.zone);
    smtp = await startSmtpServer();
    world.ctx = await createTestContext({
      SMTP_URL: smtp.url,
      OUTGOING_TRUSTED_ADDRESSES: '127.0.0.2',
      OUTGOING_DNS_SERVERS: world.dns.server,
      SLACK_WEBHOOK_HOSTS: 'hooks.slack.com,127.0.0.2',
    });
    await world.ctx.startWorker();
    world.owner = await registerUser(world.ctx.app);
  });
  afterEach((context) => {
    tests += 1;
    expect(Object.fromEntries(world.targets.connections), 'connections reached a private target').toEqual({});
    if (context.task.result?.state !== 'fail' && !context.task.result?.errors?.length) passed += 1;
  });
  afterAll(async () => {
    await world.ctx?.close();
    await smtp?.close();
    await world.receiver?.close();
    await world.dns?.close();
    const connections = world.targets?.total() ?? -1;
    await world.targets?.close();
    if (tests === 0 || passed !== tests || connections !== 0) return;
    // Each file records its part; the figure is written once both parts have passed in this run.
    fs.mkdirSync(figuresDir, { recursive: true });
    fs.writeFileSync(
      path.join(figuresDir, `${part}.json`),
      JSON.stringify({ attempts: world.attempts, connections }),
    );
    const found = parts.map((p) => path.join(figuresDir, `${p}.json`)).filter((f) => fs.existsSync(f));
    if (found.length !== parts.length) return;
    const total = found
      .map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as { attempts: number; connections: number })
      .reduce((a, b) => ({ attempts: a.attempts + b.attempts, connections: a.connections + b.connections }));
    if (total.connections === 0)
      writeFigure('security', 20, 'ssrf', `ssrf: ${total.attempts} attempts, 0 connections`);
  });
  return world;
}
