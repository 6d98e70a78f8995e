import { metricsPresets } from '@herald/contracts';
import { sql } from 'kysely';
import { rollUpEmailMetrics } from '../../apps/server/src/features/metrics/metrics.jobs.ts';
import { hashToken, randomToken } from '../../apps/server/src/lib/tokens.ts';
import { call, percentile, round1, startBench, unbounded, vacuumAnalyze, type Bench } from './lib.ts';

export const metricsAccountName = 'bench-metrics';
const broadcasts = 100;
const recipients = 50_000;
const flowSends = 1_000_000;
/** The broadcast whose figures are asked for alone. */
export const benchBroadcastId = 1_000_042;
/** Timed calls per query, after one untimed warm-up call. */
const runs = 30;

/** The metrics bench account (created through the registration call the first time) and a fresh API key. */
export async function metricsAccount(bench: Bench): Promise<{ accountId: number; apiKey: string }> {
  const found = await sql<{
    id: number;
  }>`select id from accounts where name = ${metricsAccountName} and deleting_at is null order by id limit 1`.execute(
    bench.db,
  );
  let accountId = found.rows[0]?.id;
  if (!accountId) {
    // Registration is a same-origin browser call: it carries the app's own Origin.
    const res = await fetch(`${bench.base}/v1/accounts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: bench.config.publicUrl },
      body: JSON.stringify({
        email: `metrics-${randomToken(6)}@bench.example`,
        source: 'bench',
        timezone: 'Europe/Berlin',
      }),
    });
    if (res.status !== 201) throw new Error(`registration: ${res.status} ${await res.text()}`);
    accountId = ((await res.json()) as { accountId: number }).accountId;
  }
  const apiKey = `hk_${randomToken(30)}`;
  await sql`update accounts set name = ${metricsAccountName}, timezone = 'Europe/Berlin', api_key_hash = ${hashToken(apiKey)}, api_key_hint = ${apiKey.slice(-4)} where id = ${accountId}`.execute(
    bench.db,
  );
  return { accountId: Number(accountId), apiKey };
}

/**
 * 10,000,000 email events written set-wise, as the pipeline and tracking write them (through the events table and
 * its triggers): 100 broadcasts of 50,000 recipients over the last 400 days, each sent in half an hour and opened and
 * clicked over the week after (half of them A/B tests), with bounces, unsubscribes and complaints; and five flows
 * of two steps sending all year round, 1,000,000 messages with their opens and clicks.
 */
async function load(bench: Bench, accountId: number): Promise<void> {
  const day = 86_400;
  for (let first = 0; first < broadcasts; first += 10) {
    const started = performance.now();
    await unbounded(bench.db, async (trx) => {
      await sql`
        with sends as (
          select b, p, now() - interval '1 day' - make_interval(secs => b * 4 * ${day}) + make_interval(secs => p * 0.036) as at,
            jsonb_build_object('broadcastId', 1000000 + b, 'emailId', 2000 + b % 20)
              || case when b % 2 = 0 then jsonb_build_object('variant', 1 + p % 2) else '{}'::jsonb end as subject
          from generate_series(${first}::int, ${first + 9}::int) b, generate_series(1, ${recipients}::int) p
        )
        insert into events (account_id, person_id, type, name, source, data, created_at)
        select ${accountId}, p, 'email', e.name, 'email', subject || e.extra, at + make_interval(secs => e.delay)
        from sends, lateral (values
          ('sent', '{}'::jsonb, 0, true),
          ('opened', jsonb_build_object('machine', p % 10 = 0), (p * 7919 + b * 104729) % (7 * ${day}), p % 100 < 40),
          ('opened', jsonb_build_object('machine', false), 3600 + (p * 7919 + b * 104729) % (7 * ${day}), p % 100 < 10),
          ('clicked', jsonb_build_object('machine', false, 'link', 'https://shop.example.com/' || (p % 5)), 60 + (p * 7919 + b * 104729) % (7 * ${day}), p % 100 < 15),
          ('clicked', jsonb_build_object('machine', false, 'link', 'https://shop.example.com/sale'), 120 + (p * 7919 + b * 104729) % (7 * ${day}), p % 100 < 3),
          ('bounced', jsonb_build_object('messageId', 'm' || p), 30, p % 100 = 99),
          ('unsubscribed', '{}'::jsonb, 7200, p % 200 = 7),
          ('complained', '{}'::jsonb, 9000, p % 1000 = 13)
        ) e(name, extra, delay, happens)
        where e.happens`.execute(trx);
    });
    console.log(`  broadcasts ${first}-${first + 9}: ${round1((performance.now() - started) / 1000)} s`);
  }
  const started = performance.now();
  await unbounded(bench.db, async (trx) => {
    await sql`
      with sends as (
        select i, now() - make_interval(secs => i * 31.5) as at,
          jsonb_build_object('flowId', 500 + i % 5, 'stepId', 'step-' || (i / 5) % 2, 'emailId', 3000 + i % 10) as subject
        from generate_series(1, ${flowSends}::int) i
      )
      insert into events (account_id, person_id, type, name, source, data, created_at)
      select ${accountId}, 100000 + i % 200000, 'email', e.name, 'email', subject || e.extra, at + make_interval(secs => e.delay)
      from sends, lateral (values
        ('sent', '{}'::jsonb, 0, true),
        ('opened', jsonb_build_object('machine', false), 1800, i % 100 < 40),
        ('clicked', jsonb_build_object('machine', false, 'link', 'https://shop.example.com/flow'), 2400, i % 100 < 12)
      ) e(name, extra, delay, happens)
      where e.happens and at + make_interval(secs => e.delay) < now()`.execute(trx);
  });
  console.log(`  flows: ${round1((performance.now() - started) / 1000)} s`);
}

/**
 * `metrics-10m`: GET /v1/emails/stats for each of the eleven presets, for the whole account and for one broadcast,
 * through the real HTTP API with 10M email events behind it; prints the p95 of each and ends with the worst.
 */
export async function metrics10m(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench();
  try {
    const { accountId, apiKey } = await metricsAccount(bench);
    const { rows } = await unbounded(bench.db, (trx) =>
      sql<{
        n: string;
      }>`select count(*) as n from events where account_id = ${accountId} and type = 'email'`.execute(trx),
    );
    const have = Number(rows[0]?.n ?? 0);
    if (have < 9_900_000) {
      console.log(`  ${have} email events; loading 10M`);
      await unbounded(bench.db, (trx) =>
        sql`delete from events where account_id = ${accountId}`.execute(trx),
      );
      await load(bench, accountId);
    }
    const started = performance.now();
    let taken = 0;
    for (;;) {
      const n = await rollUpEmailMetrics(bench.db, { maxBatches: 1_000_000, wait: true });
      taken += n;
      const queued = await sql<{ n: string }>`select count(*) as n from email_metric_queue`.execute(bench.db);
      if (n === 0 && Number(queued.rows[0]?.n) === 0) break;
    }
    if (taken)
      console.log(
        `  rollups built from ${taken} events in ${round1((performance.now() - started) / 1000)} s`,
      );
    await vacuumAnalyze(bench.db, ['email_metrics_hourly', 'email_metrics_links']);
    // Counting 10M events outlasts the pool's 30 s statement timeout: one connection without it.
    const sizes = await unbounded(bench.db, (trx) =>
      sql<{ hourly: string; total: string }>`select
      (select count(*) from email_metrics_hourly where account_id = ${accountId}) as hourly,
      (select count(*) from events where account_id = ${accountId} and type = 'email') as total`.execute(trx),
    );
    console.log(`  ${sizes.rows[0]?.total} email events, ${sizes.rows[0]?.hourly} hourly rollup rows`);

    let worst = 0;
    for (const scope of ['account', 'broadcast'] as const) {
      for (const period of metricsPresets) {
        const url = `/v1/emails/stats?period=${period}${scope === 'broadcast' ? `&broadcastId=${benchBroadcastId}` : ''}`;
        await call(bench, 'GET', url, { apiKey });
        const times: number[] = [];
        let sent = 0;
        for (let i = 0; i < runs; i++) {
          const t = performance.now();
          const { body } = await call<{ stats: { totals: { sent: number } } }>(bench, 'GET', url, { apiKey });
          times.push(performance.now() - t);
          sent = body.stats.totals.sent;
        }
        times.sort((a, b) => a - b);
        const p95 = percentile(times, 95);
        worst = Math.max(worst, p95);
        console.log(
          `  ${scope.padEnd(9)} ${period.padEnd(11)} p50 ${round1(percentile(times, 50))} ms, p95 ${round1(p95)} ms (sent ${sent})`,
        );
      }
    }
    return { figure: round1(worst), unit: 'ms' };
  } finally {
    await bench.stop();
  }
}
