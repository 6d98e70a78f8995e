import { sql } from 'kysely';
import { ensureBenchData, firstNames } from './bench-data.ts';
import { eventsCopyFloor } from './events-copy-floor.ts';
import { call, percentile, round1, startBench, unbounded, type Bench } from './lib.ts';

const concurrency = Number(process.env.INGEST_CLIENTS ?? 6);
const durationMs = 20_000;
/** Share of messages that are identify calls with traits (they update the person too). */
const identifyShare = Number(process.env.INGEST_IDENTIFY_SHARE ?? 0.05);
const newShare = 0.2;
const trackNames = [
  'Signed in',
  'Viewed product',
  'Added to cart',
  'Checkout started',
  'Order completed',
  'Searched',
];
const paths = ['/', '/pricing', '/features', '/blog', '/docs', '/signup'];

type Message = Record<string, unknown> & { type: 'track' | 'page' | 'identify' };

/** What a load sent: events, seconds and batch latencies. */
export interface IngestLoad {
  events: number;
  seconds: number;
}

/**
 * Batches of `batchSize` messages through POST /v1/ingest/batch (write key) from several concurrent clients for 20 s, after
 * ten warm-up batches: 80% of messages name people of `known`, 20% new addresses (the ingestion creates them);
 * mostly track, some page, a few identify with traits.
 */
export async function ingestLoad(
  bench: Bench,
  writeKey: string,
  known: string[],
  batchSize: number,
): Promise<IngestLoad> {
  const runId = Date.now().toString(36);
  let newCount = 0;
  const message = (): Message => {
    const r = Math.random();
    const email =
      Math.random() < newShare
        ? `ingest-${runId}-${newCount++}@new-signups.example`
        : known[Math.floor(Math.random() * known.length)]!;
    const timestamp =
      Math.random() < 0.5
        ? { timestamp: new Date(Date.now() - Math.floor(Math.random() * 3_600_000)).toISOString() }
        : {};
    if (r < identifyShare)
      return {
        type: 'identify',
        email,
        traits: { firstName: firstNames[Math.floor(Math.random() * firstNames.length)], plan: 'pro' },
        ...timestamp,
      };
    if (r < identifyShare + 0.2)
      return {
        type: 'page',
        email,
        url: `https://www.example.com${paths[Math.floor(Math.random() * paths.length)]}`,
        ...timestamp,
      };
    return {
      type: 'track',
      email,
      name: trackNames[Math.floor(Math.random() * trackNames.length)],
      properties: { productId: Math.floor(Math.random() * 500), price: 19.9 },
      ...timestamp,
    };
  };
  const send = async () => {
    const batch = Array.from({ length: batchSize }, message);
    const started = performance.now();
    const { body } = await call<{ accepted: number; rejected: { index: number; message: string }[] }>(
      bench,
      'POST',
      '/v1/ingest/batch',
      { writeKey, body: { batch } },
    );
    if (body.accepted !== batch.length)
      throw new Error(`rejected: ${JSON.stringify(body.rejected.slice(0, 3))}`);
    return performance.now() - started;
  };
  console.log('  warm-up: 10 batches');
  for (let i = 0; i < 10; i += 1) await send();

  console.log(
    `  ${concurrency} clients, batches of ${batchSize}, ${durationMs / 1000} s, ${identifyShare * 100}% identify, ${newShare * 100}% new people`,
  );
  let events = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const end = started + durationMs;
  let nextReport = started + 5000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        latencies.push(await send());
        events += batchSize;
        if (performance.now() > nextReport) {
          nextReport += 5000;
          console.log(`  ${events} events (${round1((performance.now() - started) / 1000)} s)`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `  ${events} events in ${round1(seconds)} s; batch latency p50 ${round1(percentile(latencies, 50))} ms, p95 ${round1(percentile(latencies, 95))} ms`,
  );
  return { events, seconds };
}

/**
 * `event-ingest`: events per second through POST /v1/ingest/batch, by `ingestLoad`, on the bench account (people
 * named are among its 1M), 100 messages a request (`INGEST_BATCH`). Everything the run added is deleted afterwards so the 1M account stays as loaded. The
 * floor is a bare COPY of as many rows of the same shape (`eventsCopyFloor`).
 */
export async function eventIngest(): Promise<{ figure: number; unit: string; floor: number }> {
  const bench = await startBench();
  try {
    const { accountId, writeKey } = await ensureBenchData(bench);
    const before = await unbounded(bench.db, async (trx) => {
      const { rows } = await sql<{ events: number; people: number }>`select
        (select max(id) from events where account_id = ${accountId}) as events,
        (select max(id) from people where account_id = ${accountId}) as people`.execute(trx);
      return rows[0]!;
    });
    const { rows: known } = await sql<{ id: number; email: string }>`select id, email from people
      where account_id = ${accountId} and id % 20 = 7 and email is not null limit 50000`.execute(bench.db);
    const { events, seconds } = await ingestLoad(
      bench,
      writeKey,
      known.map((r) => r.email),
      Number(process.env.INGEST_BATCH ?? 100),
    );

    const cleanup = await unbounded(bench.db, async (trx) => {
      const e =
        await sql`delete from events where account_id = ${accountId} and id > ${before.events}`.execute(trx);
      const p =
        await sql`delete from people where account_id = ${accountId} and id > ${before.people}`.execute(trx);
      return { events: Number(e.numAffectedRows ?? 0), people: Number(p.numAffectedRows ?? 0) };
    });
    console.log(`  cleaned up ${cleanup.events} events and ${cleanup.people} new people`);
    const floor = await eventsCopyFloor(
      bench,
      accountId,
      known.map((r) => Number(r.id)),
      events,
    );
    return { figure: Math.round(events / seconds), unit: 'events/s', floor };
  } finally {
    await bench.stop();
  }
}
