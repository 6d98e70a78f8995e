import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { flushTrackingHits, trackingHitBuffer } from '../../apps/server/src/features/tracking/tracking.endpoints.ts';
import { encodeMessage, signLink } from '../../apps/server/src/features/tracking/tracking-token.ts';
import { round1, startBench, unbounded } from './lib.ts';

const connections = 100;
const seconds = Number(process.env.TRACKING_SECONDS ?? 20);
/** Distinct messages: taken in turn, each URL comes back every few seconds, under the per-address limit of three a second. */
const messages = Number(process.env.TRACKING_MESSAGES ?? 100_000);
const links = ['https://shop.example/spring-sale?utm_source=herald&utm_medium=email', 'https://shop.example/new-arrivals', 'https://blog.example/how-we-ship'];
const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}

/**
 * autocannon in a process of its own (the server keeps this one's event loop): `connections` connections for
 * `duration` seconds, each request taking the next path of the list.
 */
const loadScript = `
const { createRequire } = await import('node:module');
const fs = await import('node:fs');
const autocannon = createRequire(process.cwd() + '/')(process.env.AC_MODULE);
const { base, paths } = JSON.parse(fs.readFileSync(process.env.AC_FILE, 'utf8'));
let next = 0;
const result = await autocannon({
  url: base, connections: Number(process.env.AC_CONNECTIONS), duration: Number(process.env.AC_SECONDS),
  ...(process.env.AC_RATE ? { overallRate: Number(process.env.AC_RATE) } : {}),
  headers: { 'user-agent': process.env.AC_AGENT },
  requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
});
process.stdout.write(JSON.stringify({ requests: result.requests, latency: result.latency, statusCodeStats: result.statusCodeStats, errors: result.errors, timeouts: result.timeouts }));
`;

/** `rate`: requests a second over all connections (autocannon's overallRate); unset, as fast as the server answers. */
export async function load(base: string, paths: string[], duration: number, rate?: number): Promise<LoadResult> {
  const file = path.join(os.tmpdir(), `tracking-hits-${process.pid}-${crypto.randomBytes(4).toString('hex')}.json`);
  fs.writeFileSync(file, JSON.stringify({ base, paths }));
  try {
    const child = spawn(process.execPath, ['--input-type=module', '-e', loadScript], {
      env: { ...process.env, AC_MODULE: createRequire(import.meta.url).resolve('autocannon'), AC_FILE: file, AC_CONNECTIONS: String(connections), AC_SECONDS: String(duration), AC_AGENT: browser, AC_RATE: rate ? String(rate) : '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`autocannon exited with ${code}`);
    return JSON.parse(out) as LoadResult;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

export const count = (result: LoadResult, status: string) => result.statusCodeStats[status]?.count ?? 0;

/** The open-pixel and click-redirect paths of `messages` messages of a bench account, sent an hour ago (no hit is a machine's by time). */
export function trackingPaths(secret: string, accountId: number, messages: number): { opens: string[]; clicks: string[] } {
  const sentAt = Date.now() - 3_600_000;
  const opens: string[] = [];
  const clicks: string[] = [];
  const signatures = links.map((link) => `${signLink(secret, accountId, 900, link)}?u=${encodeURIComponent(link)}`);
  for (let i = 0; i < messages; i++) {
    const token = encodeMessage(secret, { accountId, deliveryId: 1_000_000 + i, personId: 5_000_000 + i, emailId: 900, sourceKind: 'broadcast', sourceId: 300, variant: 0 }, sentAt);
    opens.push(`/t/o/${token}`);
    clicks.push(`/t/c/${token}/${signatures[i % signatures.length]}`);
  }
  return { opens, clicks };
}

/**
 * `tracking-hits`: the open pixel and the click redirect under autocannon, 100 connections for 20 s each, over the
 * URLs of 100,000 messages of a bench account (sent an hour ago, so no hit is a machine's by time). After the flush
 * window, every answered hit must be in the events table: 200s of the pixel as opens, 302s of the redirect as clicks.
 */
export async function trackingHits(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench('api');
  const { db, base } = bench;
  const app = bench.server.app!;
  const secret = bench.server.services.secret;
  let accountId = 0;
  try {
    const { rows } = await sql<{ id: string }>`insert into accounts (name, email, write_key, trial_ends_at, test_account)
      values ('tracking-hits bench', 'tracking-bench@example.com', ${`wk_${crypto.randomBytes(12).toString('hex')}`}, now() + interval '30 days', true) returning id`.execute(db);
    accountId = Number(rows[0]!.id);
    const { opens, clicks } = trackingPaths(secret, accountId, messages);
    console.log(`  account ${accountId}: ${messages} messages' URLs; ${connections} connections, ${seconds} s each`);

    console.log('  warm-up: 3 s on the pixel');
    await load(base, opens, 3);
    await flushTrackingHits(app);
    await sql`delete from events where account_id = ${accountId}`.execute(db);

    const figures: { name: string; result: LoadResult; answered: number }[] = [];
    for (const [name, paths, status] of [['open pixel', opens, '200'], ['click redirect', clicks, '302']] as const) {
      const cpu = process.cpuUsage();
      const result = await load(base, paths, seconds);
      const used = process.cpuUsage(cpu);
      const answered = count(result, status);
      figures.push({ name, result, answered });
      const others = Object.entries(result.statusCodeStats).filter(([code]) => code !== status).map(([code, { count: n }]) => `${code}: ${n}`);
      console.log(`  ${name}: ${round1(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; ${answered} × ${status}${others.length ? `, others ${others.join(', ')}` : ''}, ${result.errors} errors, ${result.timeouts} timeouts; server CPU ${round1((used.user + used.system) / Math.max(1, answered))} µs a hit`);
    }

    // The flush window: the buffer writes at least once a second; wait two and flush what is left.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await flushTrackingHits(app);
    const { rows: written } = await sql<{ name: string; n: string }>`select name, count(*) as n from events where account_id = ${accountId} group by name`.execute(db);
    const stored = new Map(written.map((row) => [row.name, Number(row.n)]));
    const buffer = trackingHitBuffer(app);
    console.log(`  persisted: ${stored.get('opened') ?? 0} opens, ${stored.get('clicked') ?? 0} clicks (buffer dropped ${buffer?.dropped ?? 0})`);
    const [open, click] = figures as [(typeof figures)[0], (typeof figures)[0]];
    // autocannon stops with a request in flight on each connection: the server answered (and recorded) those, autocannon did not count them.
    const persistedAll = (written: number, answered: number) => written >= answered && written <= answered + connections;
    if (!persistedAll(stored.get('opened') ?? 0, open.answered) || !persistedAll(stored.get('clicked') ?? 0, click.answered)) {
      throw new Error(`answered ${open.answered} opens and ${click.answered} clicks, but ${stored.get('opened') ?? 0} and ${stored.get('clicked') ?? 0} were written`);
    }
    const worst = Math.max(open.result.latency.p99, click.result.latency.p99);
    console.log(`  every answered hit was written; worst p99 ${worst} ms`);
    return { figure: Math.round(Math.min(open.result.requests.average, click.result.requests.average)), unit: 'req/s' };
  } finally {
    if (accountId) await unbounded(db, async (trx) => sql`delete from accounts where id = ${accountId}`.execute(trx));
    await bench.stop();
  }
}
