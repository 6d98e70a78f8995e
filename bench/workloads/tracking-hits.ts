import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { rollUpEmailMetrics } from '../../apps/server/src/features/metrics/metrics.jobs.ts';
import { encodeMessage, signLink } from '../../apps/server/src/features/tracking/tracking-token.ts';
import { postgresCpuSeconds, processFigures } from './broadcast-100k.ts';
import { databaseUrlOf, startHeraldProcess } from './herald-process.ts';
import { round1, startBench, unbounded, vacuumAnalyze, type Bench } from './lib.ts';
import { recordAnswer, startBareServer } from './tracking-floor.ts';

const connections = 100;
const seconds = Number(process.env.TRACKING_SECONDS ?? 20);
/** Distinct messages: taken in turn, each URL comes back every few seconds, under the per-address limit of three a second. */
const messages = Number(process.env.TRACKING_MESSAGES ?? 100_000);
const links = [
  'https://shop.example/spring-sale?utm_source=herald&utm_medium=email',
  'https://shop.example/new-arrivals',
  'https://blog.example/how-we-ship',
];

export interface LoadResult {
  /** The generator that made the load: wrk (C, little CPU of its own) or autocannon (Node). */
  tool: 'wrk' | 'autocannon';
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  /** Answers with a 2xx or 3xx status (the pixel's 200, the redirect's 302). */
  answered: number;
  /** Answers with any other status. */
  others: number;
  errors: number;
  timeouts: number;
}

const userAgent =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

/**
 * autocannon in a process of its own (the server keeps this one's event loop): `connections` connections for
 * `duration` seconds, each request taking the next path of the list.
 */
const autocannonScript = `
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

/**
 * wrk's script: each of its threads reads the paths, writes each one's request once (wrk.format, with the -H
 * headers and Host), starts at its own place in them, and each request takes the next; at the end one JSON line
 * with the totals (wrk counts any status outside 2xx/3xx as a status error). Formatting the request for each one
 * sent cost wrk about 3 µs of CPU a request, which the two cores then lacked for the server it measures.
 */
const wrkScript = `
local threads = 0
function setup(thread) thread:set("place", threads); threads = threads + 1 end
local requests, count, next = {}, 0, 0
function init(args)
  for line in io.lines(args[1]) do requests[#requests + 1] = wrk.format("GET", line) end
  count = #requests
  next = math.floor(count * place / tonumber(args[2]))
end
function request()
  next = next + 1
  if next > count then next = 1 end
  return requests[next]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK {"requests":%d,"duration":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50":%d,"p99":%d,"mean":%f}\\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout, latency:percentile(50), latency:percentile(99), latency.mean))
end
`;

/** wrk when this machine has it (Debian's `wrk` package) and `TRACKING_LOADER` does not ask for autocannon. */
export function wrkPath(): string | null {
  if (process.env.TRACKING_LOADER === 'autocannon') return null;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'wrk');
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${path.basename(command)} exited with ${code}`)),
    ),
  );
}

/**
 * `connections` connections for `duration` seconds, each request taking the next path of the list; `rate`:
 * requests a second over all connections (autocannon's overallRate), unset: as fast as the server answers.
 * As fast as it answers, wrk makes the load when it is installed: autocannon is a Node program that spends
 * about as much CPU a request as the server it measures, which on two cores halves what the server can show.
 */
export async function load(
  base: string,
  paths: string[],
  duration: number,
  rate?: number,
): Promise<LoadResult> {
  const file = path.join(
    os.tmpdir(),
    `tracking-hits-${process.pid}-${crypto.randomBytes(4).toString('hex')}`,
  );
  const wrk = rate ? null : wrkPath();
  try {
    if (wrk) {
      const threads = 2;
      fs.writeFileSync(`${file}.txt`, `${paths.join('\n')}\n`);
      fs.writeFileSync(`${file}.lua`, wrkScript);
      const out = await run(
        wrk,
        [
          '-t',
          String(threads),
          '-c',
          String(connections),
          '-d',
          `${duration}s`,
          '--timeout',
          '10s',
          '-H',
          `User-Agent: ${userAgent}`,
          '-s',
          `${file}.lua`,
          base,
          '--',
          `${file}.txt`,
          String(threads),
        ],
        process.env,
      );
      const line = out.split('\n').find((l) => l.startsWith('WRK '));
      if (!line) throw new Error(`wrk printed no totals:\n${out}`);
      const w = JSON.parse(line.slice(4)) as Record<string, number>;
      const n = (key: string) => w[key] ?? 0;
      return {
        tool: 'wrk',
        requests: { average: n('requests') / (n('duration') / 1e6), total: n('requests') },
        latency: { p50: n('p50') / 1000, p99: n('p99') / 1000, average: n('mean') / 1000 },
        answered: n('requests') - n('status'),
        others: n('status'),
        errors: n('connect') + n('read') + n('write'),
        timeouts: n('timeout'),
      };
    }
    fs.writeFileSync(`${file}.json`, JSON.stringify({ base, paths }));
    const out = await run(process.execPath, ['--input-type=module', '-e', autocannonScript], {
      ...process.env,
      AC_MODULE: createRequire(import.meta.url).resolve('autocannon'),
      AC_FILE: `${file}.json`,
      AC_CONNECTIONS: String(connections),
      AC_SECONDS: String(duration),
      AC_AGENT: userAgent,
      AC_RATE: rate ? String(rate) : '',
    });
    const a = JSON.parse(out) as {
      requests: { average: number; total: number };
      latency: LoadResult['latency'];
      statusCodeStats: Record<string, { count: number }>;
      errors: number;
      timeouts: number;
    };
    const answered = Object.entries(a.statusCodeStats)
      .filter(([code]) => /^[23]/.test(code))
      .reduce((sum, [, { count: c }]) => sum + c, 0);
    const total = Object.values(a.statusCodeStats).reduce((sum, { count: c }) => sum + c, 0);
    return {
      tool: 'autocannon',
      requests: a.requests,
      latency: a.latency,
      answered,
      others: total - answered,
      errors: a.errors,
      timeouts: a.timeouts,
    };
  } finally {
    for (const ext of ['.txt', '.lua', '.json']) fs.rmSync(`${file}${ext}`, { force: true });
  }
}

/** The open-pixel and click-redirect paths of `messages` messages of a bench account, sent an hour ago (no hit is a machine's by time). */
export function trackingPaths(
  secret: string,
  accountId: number,
  messages: number,
): { opens: string[]; clicks: string[] } {
  const sentAt = Date.now() - 3_600_000;
  const opens: string[] = [];
  const clicks: string[] = [];
  const signatures = links.map(
    (link) => `${signLink(secret, accountId, 900, link)}?u=${encodeURIComponent(link)}`,
  );
  for (let i = 0; i < messages; i++) {
    const token = encodeMessage(
      secret,
      {
        accountId,
        deliveryId: 1_000_000 + i,
        personId: 5_000_000 + i,
        emailId: 900,
        sourceKind: 'broadcast',
        sourceId: 300,
        variant: 0,
      },
      sentAt,
    );
    opens.push(`/t/o/${token}`);
    clicks.push(`/t/c/${token}/${signatures[i % signatures.length]}`);
  }
  return { opens, clicks };
}

/**
 * Wait until the account's opened and clicked events reach `expected` (when given) and then stop growing; without
 * `expected`, until they stop growing for 10 s. The buffer writes what it holds at least once a second, but after
 * a load that outran PostgreSQL one write holds the whole backlog: at 180 µs of PostgreSQL a hit, 280,000 clicks
 * committed in one go after more than 10 s of no growth, which a wait for two equal counts 2 s apart took for a loss.
 * With `expected`, it gives up after two minutes of no growth.
 */
export async function settledHits(
  db: Bench['db'],
  accountId: number,
  expected?: { opened: number; clicked: number },
): Promise<Map<string, number>> {
  let last = '';
  let unchangedSince = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const { rows } = await sql<{
      name: string;
      n: string;
    }>`select name, count(*) as n from events where account_id = ${accountId} and name in ('opened', 'clicked') group by name`.execute(
      db,
    );
    const counts = new Map(rows.map((row) => [row.name, Number(row.n)]));
    const reached =
      !expected ||
      ((counts.get('opened') ?? 0) >= expected.opened && (counts.get('clicked') ?? 0) >= expected.clicked);
    const now = JSON.stringify(rows);
    if (now !== last) unchangedSince = Date.now();
    else if (reached || Date.now() - unchangedSince >= (expected ? 120_000 : 10_000)) return counts;
    last = now;
  }
}

/**
 * `tracking-hits`: the open pixel and the click redirect of Herald as `npm start` runs it (the built server in a
 * process of its own), 100 connections for 20 s each, over the URLs of 100,000 messages of a bench account (sent
 * an hour ago, so no hit is a machine's by time). After the flush window, every answered hit must be in the events
 * table: the pixel's 200s as opens, the redirect's 302s as clicks.
 */
export async function trackingHits(): Promise<{ figure: number; unit: string; floor: number }> {
  const bench = await startBench('api');
  const { db } = bench;
  const secret = 'bench-hits-secret-bench-hits-secret-0123456789';
  const herald = await startHeraldProcess({
    databaseUrl: databaseUrlOf(bench),
    port: Number(process.env.TRACKING_PORT ?? 3954),
    secret,
  }).catch(async (error: unknown) => {
    await bench.stop();
    throw error;
  });
  let accountId = 0;
  try {
    const { rows } = await sql<{
      id: string;
    }>`insert into accounts (name, email, write_key, trial_ends_at, test_account)
      values ('tracking-hits bench', 'tracking-bench@example.com', ${`wk_${crypto.randomBytes(12).toString('hex')}`}, now() + interval '30 days', true) returning id`.execute(
      db,
    );
    accountId = Number(rows[0]!.id);
    const { opens, clicks } = trackingPaths(secret, accountId, messages);
    const tool = wrkPath() ? 'wrk' : 'autocannon';
    console.log(
      `  account ${accountId}: ${messages} messages' URLs; ${tool}, ${connections} connections, ${seconds} s each, against pid ${herald.pid}`,
    );

    console.log('  warm-up: 3 s on the pixel and 3 s on the redirect');
    await load(herald.base, opens.slice(0, messages / 2), 3);
    await load(herald.base, clicks.slice(0, messages / 2), 3);
    // What Herald answers to a hit, for the floor below to answer byte for byte.
    const answers = {
      pixel: await recordAnswer(herald.base, opens[0]!, userAgent),
      redirect: await recordAnswer(herald.base, clicks[0]!, userAgent),
    };
    if (answers.pixel.status !== 200 || answers.redirect.status !== 302)
      throw new Error(
        `Herald answered ${answers.pixel.status} to an open and ${answers.redirect.status} to a click`,
      );
    await settledHits(db, accountId);
    await rollUpEmailMetrics(db, { maxBatches: 1000, wait: true });
    await sql`delete from events where account_id = ${accountId}`.execute(db);
    // What hits churn, as autovacuum would have left it (benches may run where it is off).
    await vacuumAnalyze(db, ['events', 'email_metric_queue', 'segment_dirty_people', 'email_metric_firsts']);

    const figures: { name: string; result: LoadResult }[] = [];
    const postgresAtStart = postgresCpuSeconds();
    const heraldAtStart = processFigures(herald.pid).cpuSeconds;
    for (const [name, paths] of [
      ['open pixel', opens],
      ['click redirect', clicks],
    ] as const) {
      const cpu = processFigures(herald.pid).cpuSeconds;
      const postgres = postgresCpuSeconds();
      const result = await load(herald.base, paths, seconds);
      const used = processFigures(herald.pid).cpuSeconds - cpu;
      figures.push({ name, result });
      console.log(
        `  ${name}: ${round1(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; ${result.answered} answered, ${result.others} other statuses, ${result.errors} errors, ${result.timeouts} timeouts; Herald CPU ${round1((used * 1e6) / Math.max(1, result.answered))} µs a hit, PostgreSQL ${round1(postgresCpuSeconds() - postgres)} s`,
      );
    }

    const [open, click] = figures as [(typeof figures)[0], (typeof figures)[0]];
    const stored = await settledHits(db, accountId, {
      opened: open.result.answered,
      clicked: click.result.answered,
    });
    await rollUpEmailMetrics(db, { maxBatches: 1000, wait: true });
    const hits = (stored.get('opened') ?? 0) + (stored.get('clicked') ?? 0);
    const perHit = (seconds: number) => round1((seconds * 1e6) / Math.max(1, hits));
    console.log(
      `  persisted: ${stored.get('opened') ?? 0} opens, ${stored.get('clicked') ?? 0} clicks; CPU a hit, written and rolled up: Herald ${perHit(processFigures(herald.pid).cpuSeconds - heraldAtStart)} µs, PostgreSQL ${perHit(postgresCpuSeconds() - postgresAtStart)} µs`,
    );
    // The load stops with a request in flight on each connection: the server answered (and recorded) those, the generator did not count them.
    const persistedAll = (written: number, answered: number) =>
      written >= answered && written <= answered + connections;
    if (
      !persistedAll(stored.get('opened') ?? 0, open.result.answered) ||
      !persistedAll(stored.get('clicked') ?? 0, click.result.answered)
    ) {
      throw new Error(
        `answered ${open.result.answered} opens and ${click.result.answered} clicks, but ${stored.get('opened') ?? 0} and ${stored.get('clicked') ?? 0} were written`,
      );
    }
    if (open.result.others || click.result.others)
      throw new Error(
        `${open.result.others + click.result.others} hits got a status other than the image or the redirect`,
      );
    const worst = Math.max(open.result.latency.p99, click.result.latency.p99);
    console.log(`  every answered hit was written; worst p99 ${worst} ms`);

    // The floor: the same hits, under the same load, answered by a bare Node HTTP server (tracking-floor.ts).
    const bare = await startBareServer(answers);
    const floorRates: number[] = [];
    try {
      console.log(`  floor: a bare Node HTTP server (pid ${bare.pid}) answering the same bytes, Herald idle`);
      await load(bare.base, opens.slice(0, messages / 2), 3);
      await load(bare.base, clicks.slice(0, messages / 2), 3);
      for (const [name, paths] of [
        ['open pixel', opens],
        ['click redirect', clicks],
      ] as const) {
        const cpu = processFigures(bare.pid).cpuSeconds;
        const result = await load(bare.base, paths, seconds);
        const used = processFigures(bare.pid).cpuSeconds - cpu;
        floorRates.push(result.requests.average);
        console.log(
          `  floor, ${name}: ${round1(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; ${result.answered} answered, ${result.others} other statuses, ${result.errors} errors; CPU ${round1((used * 1e6) / Math.max(1, result.answered))} µs a hit`,
        );
      }
    } finally {
      await bare.stop();
    }
    return {
      figure: Math.round(Math.min(open.result.requests.average, click.result.requests.average)),
      unit: 'req/s',
      floor: Math.round(Math.min(...floorRates)),
    };
  } finally {
    await herald.stop();
    if (accountId)
      await unbounded(db, async (trx) => sql`delete from accounts where id = ${accountId}`.execute(trx));
    await bench.stop();
  }
}
