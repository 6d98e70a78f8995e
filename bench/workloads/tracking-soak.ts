import crypto from 'node:crypto';
import { sql } from 'kysely';
import { processFigures } from './broadcast-100k.ts';
import { databaseUrlOf, startHeraldProcess } from './herald-process.ts';
import { round1, startBench, unbounded } from './lib.ts';
import { load, settledHits, trackingPaths } from './tracking-hits.ts';

const seconds = Number(process.env.SOAK_SECONDS ?? 600);
const rate = Number(process.env.SOAK_RATE ?? 10_000);
const messages = Number(process.env.TRACKING_MESSAGES ?? 100_000);
const secret = 'bench-soak-secret-bench-soak-secret-0123456789';
const sampleMs = 5_000;

/**
 * `tracking-soak`: the open pixel and the click redirect, taken in turn, at a steady `SOAK_RATE` requests a second
 * (10,000) for `SOAK_SECONDS` (600), against Herald as `npm start` runs it (the built server in a process of its
 * own). The resident memory of that process is sampled every 5 s; the figure is how far the last minute's average
 * is from the first minute's, in percent (flat: within 10). Every answered hit must then be in the events table.
 */
export async function trackingSoak(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench('api');
  const { db } = bench;
  const herald = await startHeraldProcess({ databaseUrl: databaseUrlOf(bench), port: 3953, secret }).catch(
    async (error: unknown) => {
      await bench.stop();
      throw error;
    },
  );
  let accountId = 0;
  try {
    const { rows } = await sql<{
      id: string;
    }>`insert into accounts (name, email, write_key, trial_ends_at, test_account)
      values ('tracking-soak bench', 'tracking-soak@example.com', ${`wk_${crypto.randomBytes(12).toString('hex')}`}, now() + interval '30 days', true) returning id`.execute(
      db,
    );
    accountId = Number(rows[0]!.id);
    const { opens, clicks } = trackingPaths(secret, accountId, messages);
    // Opens and clicks in turn: the pixel answers 200, the redirect 302.
    const paths = opens.flatMap((open, i) => [open, clicks[i]!]);
    console.log(
      `  account ${accountId}: ${messages} messages; ${rate} req/s for ${seconds} s against pid ${herald.pid}`,
    );

    const samples: { at: number; rss: number }[] = [];
    const started = Date.now();
    const sampler = setInterval(() => {
      const { rss } = processFigures(herald.pid!);
      samples.push({ at: Date.now() - started, rss });
      if (samples.length % 12 === 0)
        console.log(`  ${Math.round((Date.now() - started) / 1000)} s: rss ${Math.round(rss / 1e6)} MB`);
    }, sampleMs);
    const result = await load(herald.base, paths, seconds, rate).finally(() => clearInterval(sampler));
    const answered = result.answered;
    console.log(
      `  load: ${round1(result.requests.average)} req/s on average (asked ${rate}), p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; ${answered} answered, ${result.others} other statuses, ${result.errors} errors, ${result.timeouts} timeouts`,
    );

    // Every answered hit is written within the flush window (a second); wait until the count stops moving.
    const written = await settledHits(db, accountId);
    const stored = (written.get('opened') ?? 0) + (written.get('clicked') ?? 0);
    // autocannon stops with a request in flight on each connection: the server answered (and wrote) those uncounted.
    console.log(`  persisted: ${stored} of ${answered} answered hits`);
    if (stored < answered || stored > answered + 100)
      throw new Error(`answered ${answered} hits but ${stored} were written`);

    const minuteAverage = (from: number, to: number) => {
      const inside = samples.filter((s) => s.at > from && s.at <= to);
      return inside.reduce((sum, s) => sum + s.rss, 0) / Math.max(1, inside.length);
    };
    const last = samples.at(-1)?.at ?? 0;
    const first = minuteAverage(0, 60_000);
    const final = minuteAverage(last - 60_000, last);
    const change = ((final - first) / first) * 100;
    console.log(
      `  rss: first minute ${Math.round(first / 1e6)} MB, last minute ${Math.round(final / 1e6)} MB, peak ${Math.round(processFigures(herald.pid!).peak / 1e6)} MB`,
    );
    console.log(
      `  every answered hit was written; memory ${Math.abs(change) <= 10 ? 'flat' : 'NOT flat'} (${round1(change)} %)`,
    );
    return { figure: round1(change), unit: '% memory change' };
  } finally {
    await herald.stop();
    if (accountId)
      await unbounded(db, async (trx) => sql`delete from accounts where id = ${accountId}`.execute(trx));
    await bench.stop();
  }
}
