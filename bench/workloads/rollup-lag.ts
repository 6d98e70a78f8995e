import { sql } from 'kysely';
import { call, round1, startBench } from './lib.ts';
import { metricsAccount } from './metrics-10m.ts';

const burst = 100_000;
const sendBatch = 250;
const trackingBatch = 1_000;
const senders = 4;

/**
 * `rollup-lag`: a burst of 100,000 email events written as they are in production (50,000 `sent` events in batches
 * of 250 from four concurrent sender loops, each batch one insert as recordSent makes it; 50,000 opens and clicks in
 * batches of 1,000 as the tracking buffer flushes them), then GET /v1/emails/stats is polled until its figures
 * include every one. The figure is seconds from the first write to the first complete answer; the server's own
 * worker does the rollup.
 */
export async function rollupLag(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench();
  try {
    const { accountId, apiKey } = await metricsAccount(bench);
    const broadcastId = 2_000_000 + Math.floor(Math.random() * 1_000_000);
    const url = `/v1/emails/stats?period=thisWeek&broadcastId=${broadcastId}`;
    const base = (await call<{ stats: { totals: { sent: number } } }>(bench, 'GET', url, { apiKey })).body
      .stats.totals;
    if (base.sent !== 0) throw new Error('the broadcast id is taken');
    const sentTotal = burst / 2;
    const trackTotal = burst / 2;

    const insert = async (name: 'sent' | 'opened' | 'clicked', people: number[]) =>
      sql`insert into events (account_id, person_id, type, name, source, data)
        select ${accountId}, p, 'email', ${name}, 'email',
          jsonb_build_object('broadcastId', ${broadcastId}::bigint, 'emailId', 77) ||
          case when ${name} = 'clicked' then jsonb_build_object('machine', false, 'link', 'https://shop.example.com/burst')
               when ${name} = 'opened' then jsonb_build_object('machine', false) else '{}'::jsonb end
        from unnest(${people}::bigint[]) p`.execute(bench.db);

    const started = performance.now();
    let next = 0;
    const sending = Array.from({ length: senders }, async () => {
      while (next < sentTotal) {
        const from = next;
        next += sendBatch;
        await insert(
          'sent',
          Array.from({ length: Math.min(sendBatch, sentTotal - from) }, (_, i) => from + i + 1),
        );
      }
    });
    const tracking = (async () => {
      for (let from = 0; from < trackTotal; from += trackingBatch) {
        const people = Array.from({ length: trackingBatch }, (_, i) => ((from + i) % sentTotal) + 1);
        await insert(from % 5000 === 0 ? 'clicked' : 'opened', people);
      }
    })();
    await Promise.all([...sending, tracking]);
    const written = (performance.now() - started) / 1000;
    console.log(`  ${burst} events written in ${round1(written)} s (${Math.round(burst / written)}/s)`);

    const clicks = (trackTotal / trackingBatch / 5) * trackingBatch;
    const expected = { sent: sentTotal, opened: trackTotal - clicks, clicked: clicks };
    for (;;) {
      const { body } = await call<{
        stats: { totals: { sent: number; opened: number; clicked: number; uniqueOpens: number } };
      }>(bench, 'GET', url, { apiKey });
      const t = body.stats.totals;
      if (t.sent === expected.sent && t.opened === expected.opened && t.clicked === expected.clicked) {
        const lag = (performance.now() - started) / 1000;
        console.log(
          `  figures complete after ${round1(lag)} s (${round1(lag - written)} s after the last write): sent ${t.sent}, opened ${t.opened} (${t.uniqueOpens} unique), clicked ${t.clicked}`,
        );
        return { figure: round1(lag), unit: 's' };
      }
      if ((performance.now() - started) / 1000 > 300)
        throw new Error(`figures still incomplete after 300 s: ${JSON.stringify(t)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await bench.stop();
  }
}
