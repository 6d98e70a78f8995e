import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { EmailStatsQuery, metricsPresets, type ConditionNode } from '@herald/contracts';
import type { Session } from '../../apps/server/src/http/route.ts';
import { clickhouseMetrics } from '../../apps/server/src/features/metrics/metrics-clickhouse.queries.ts';
import { emailStats } from '../../apps/server/src/features/metrics/metrics.service.ts';
import { connectClickHouse, type ClickHouse } from '../../apps/server/src/db/clickhouse.ts';
import { recordFirstEngagements } from '../../apps/server/src/db/clickhouse-firsts.ts';
import { clickhouseTime, migrateClickHouse } from '../../apps/server/src/db/clickhouse-schema.ts';
import { withAccount } from '../../apps/server/src/db/tenancy.ts';
import { ensureBenchData } from './bench-data.ts';
import { count, loadClickHouse, recentOrders } from './events-store.ts';
import { benchEvents, percentile, round1, startBench, type Bench } from './lib.ts';
import { threeConditions } from './segments.ts';

/**
 * `events-store-100m`: the bench account's 1M people with 100M events in ClickHouse (embedded through chdb, the
 * engine Herald uses for EVENT_STORE=clickhouse), and the counts of `events-store-10m` on them. The events are the
 * account's 10M copied from PostgreSQL and nine more copies of them, each a few hours earlier under new ids: ten
 * times the activity per person over the same months. PostgreSQL does not hold these events, so the comparison is
 * with the floor: the same question written by hand (ClickHouse's people with such events, then PostgreSQL's count
 * of the people among them), in the same run. The figure is the slower count's median in seconds.
 */

const copies = 10;
/** Ids of the copies start here (copy k adds k times this to the original id): far above any id PostgreSQL gave. */
const idStride = 1_000_000_000;
const runs = 7;

/** ClickHouse with the account's events ten times over; made once and reused while it holds them. */
async function loadHundredMillion(bench: Bench, ch: ClickHouse, accountId: number): Promise<number> {
  const held = async () =>
    (await ch.numbers('SELECT count() FROM events WHERE account_id = {a:UInt64}', { a: accountId }))[0] ?? 0;
  const already = await held();
  if (already >= copies * benchEvents) {
    console.log(`  ClickHouse already holds ${already} events: reused`);
    return already;
  }
  await ch.command('DROP TABLE IF EXISTS events');
  await migrateClickHouse(ch, undefined);
  await loadClickHouse(bench, ch, accountId);
  const started = performance.now();
  for (let k = 1; k < copies; k += 1) {
    // Each copy a few hours earlier than the original (k × 97 minutes), so windows such as "in the last 30 days"
    // hold about ten times as many events as on the 10M account.
    await ch.command(
      `INSERT INTO events SELECT account_id, person_id, created_at - toIntervalMinute({shift:UInt32}), id + {offset:UInt64},
         type, name, url, data, source
       FROM events WHERE account_id = {a:UInt64} AND id < {stride:UInt64}`,
      { a: accountId, shift: k * 97, offset: k * idStride, stride: idStride },
    );
    console.log(
      `  copy ${k + 1}/${copies}: ${await held()} events (${round1((performance.now() - started) / 1000)} s)`,
    );
  }
  return held();
}

/** The hand-written ClickHouse question for one event condition of these workloads (name, at least N, in the last D days). */
function eventPeopleQuery(node: ConditionNode): { query: string; params: Record<string, unknown> } {
  if (node.type !== 'event' || node.window.type !== 'inTheLast' || node.count.operator !== 'atLeast')
    throw new Error('the floor is written for "at least N times in the last D days"');
  return {
    query: `SELECT person_id FROM events
      WHERE account_id = {a:UInt64} AND type = 'track' AND name = {name:String} AND created_at >= {since:DateTime64(6, 'UTC')}
      GROUP BY person_id HAVING count() >= {n:UInt64}`,
    params: { name: node.name, n: node.count.value },
  };
}

/**
 * The floor: the same count written by hand. ClickHouse lists the people with the events; PostgreSQL counts the
 * account's people among them that are not archived and meet the other conditions (plan is pro, tagged customer).
 */
async function floorCount(
  bench: Bench,
  ch: ClickHouse,
  accountId: number,
  nodes: ConditionNode[],
  now: Date,
): Promise<number> {
  const event = nodes.find((n) => n.type === 'event')!;
  const { query, params } = eventPeopleQuery(event);
  const days = event.type === 'event' && event.window.type === 'inTheLast' ? event.window.days : 0;
  const since = clickhouseTime(new Date(now.getTime() - days * 86_400_000));
  const ids = await ch.numbers(query, { ...params, a: accountId, since });
  const others = nodes.length > 1;
  return withAccount(bench.db, accountId, async (db) => {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from people p
      where p.account_id = ${accountId} and p.archived_at is null and p.id = any(${ids}::bigint[])
      ${others ? sql`and p.fields->>'plan' = 'pro' and p.tags @> array['customer']` : sql``}`.execute(db);
    return rows[0]!.n;
  });
}

/** Herald's count and the floor's, `runs` times each after a warm-up: medians and p95s, checking both count the same. */
async function timeBoth(
  label: string,
  bench: Bench,
  ch: ClickHouse,
  accountId: number,
  nodes: ConditionNode[],
): Promise<{ herald: number; floor: number }> {
  const now = new Date();
  const herald = await count(bench, ch, accountId, nodes, 'clickhouse', now);
  const floor = await floorCount(bench, ch, accountId, nodes, now);
  if (herald.n !== floor)
    throw new Error(`${label}: Herald counts ${herald.n}, the hand-written SQL ${floor}`);
  const timed = async (work: () => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const started = performance.now();
      await work();
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b);
  };
  const asking: number[] = [];
  const heraldTimes = await timed(async () =>
    asking.push((await count(bench, ch, accountId, nodes, 'clickhouse', now)).askMs),
  );
  const floorTimes = await timed(() => floorCount(bench, ch, accountId, nodes, now));
  asking.sort((a, b) => a - b);
  const result = { herald: round1(percentile(heraldTimes, 50)), floor: round1(percentile(floorTimes, 50)) };
  console.log(
    `  ${label}: ${herald.n} people (ClickHouse listed ${herald.listed}); Herald median ${result.herald} ms, p95 ${round1(percentile(heraldTimes, 95))} ms (ClickHouse's answer median ${round1(percentile(asking, 50))} ms); hand-written median ${result.floor} ms, p95 ${round1(percentile(floorTimes, 95))} ms`,
  );
  return result;
}

/** Email events of the account (ids far above the others'): sends, opens, clicks, bounces, unsubscribes, complaints. */
const emailIdBase = 50_000_000_000;

/**
 * The email events of `metrics-10m` written straight into ClickHouse (whose views fill the metrics' rollups, the first
 * opens and clicks recorded as a forward records them): 100
 * broadcasts of 50,000 of the account's people over the last 400 days, opened and clicked over the week after each
 * (half of them A/B tests), with bounces, unsubscribes and complaints; and five flows of two steps sending all year
 * round, 1,000,000 messages with their opens and clicks.
 */
async function loadEmailEvents(ch: ClickHouse, accountId: number, firstPerson: number): Promise<void> {
  const [held = 0] = await ch.numbers(
    `SELECT count() FROM events WHERE account_id = {a:UInt64} AND type = 'email'`,
    { a: accountId },
  );
  const [rolledUp = 0] = await ch.numbers(
    `SELECT sum(sent) FROM email_metrics_hourly WHERE account_id = {a:UInt64}`,
    { a: accountId },
  );
  if (held > 0 && rolledUp > 0) {
    console.log(`  ClickHouse already holds ${held} email events (${rolledUp} sends rolled up): reused`);
    return;
  }
  // Email events without their rollups (tables made after them): written again.
  if (held > 0)
    await ch.command(
      `ALTER TABLE events DELETE WHERE account_id = {a:UInt64} AND type = 'email'`,
      { a: accountId },
      {
        mutations_sync: 2,
      },
    );
  const started = performance.now();
  const day = 86_400;
  const hash = `((p * 7919 + b * 104729) % (7 * ${day}))`;
  await ch.command(
    `INSERT INTO events
     SELECT {a:UInt64}, {first:UInt64} + ((b * 7919 + p) % 1000000), at + toIntervalSecond(e.3), {base:UInt64} + b * 10000000 + p * 10 + e.5,
       'email', e.1, NULL,
       concat('{"broadcastId":', toString(1000000 + b), ',"emailId":', toString(2000 + b % 20),
         if(b % 2 = 0, concat(',"variant":', toString(1 + p % 2)), ''), e.2, '}'),
       'email'
     FROM (
       SELECT intDiv(number, 50000) AS b, number % 50000 + 1 AS p,
         now64(6) - toIntervalSecond(${day} + b * 4 * ${day}) + toIntervalMillisecond(p * 36) AS at,
         arrayJoin([
           ('sent', '', 0, true, 0),
           ('opened', if(p % 10 = 0, ',"machine":true', ',"machine":false'), ${hash}, p % 100 < 40, 1),
           ('opened', ',"machine":false', 3600 + ${hash}, p % 100 < 10, 2),
           ('clicked', concat(',"machine":false,"link":"https://shop.example.com/', toString(p % 5), '"'), 60 + ${hash}, p % 100 < 15, 3),
           ('clicked', ',"machine":false,"link":"https://shop.example.com/sale"', 120 + ${hash}, p % 100 < 3, 4),
           ('bounced', concat(',"messageId":"m', toString(p), '"'), 30, p % 100 = 99, 5),
           ('unsubscribed', '', 7200, p % 200 = 7, 6),
           ('complained', '', 9000, p % 1000 = 13, 7)
         ]) AS e
       FROM numbers(5000000)
     ) WHERE e.4`,
    { a: accountId, first: firstPerson, base: emailIdBase },
  );
  await ch.command(
    `INSERT INTO events
     SELECT {a:UInt64}, {first:UInt64} + 100000 + i % 200000, at + toIntervalSecond(e.3), {base:UInt64} + 2000000000 + i * 10 + e.5,
       'email', e.1, NULL,
       concat('{"flowId":', toString(500 + i % 5), ',"stepId":"step-', toString(intDiv(i, 5) % 2), '","emailId":', toString(3000 + i % 10), e.2, '}'),
       'email'
     FROM (
       SELECT number + 1 AS i, now64(6) - toIntervalMillisecond(i * 31500) AS at,
         arrayJoin([
           ('sent', '', 0, true, 0),
           ('opened', ',"machine":false', 1800, i % 100 < 40, 1),
           ('clicked', ',"machine":false,"link":"https://shop.example.com/flow"', 2400, i % 100 < 12, 2)
         ]) AS e
       FROM numbers(1000000)
     ) WHERE e.4 AND at + toIntervalSecond(e.3) < now64(6)`,
    { a: accountId, first: firstPerson, base: emailIdBase },
  );
  // What each forward does for its opens and clicks: the first of each recipient counts as a unique one.
  await recordFirstEngagements(
    ch,
    `(SELECT * FROM events WHERE account_id = {a:UInt64} AND type = 'email' AND id >= {base:UInt64})`,
    { a: accountId, base: emailIdBase },
    'bench-100m-email',
  );
  const [now = 0] = await ch.numbers(
    `SELECT count() FROM events WHERE account_id = {a:UInt64} AND type = 'email'`,
    { a: accountId },
  );
  console.log(`  ${now} email events written in ${round1((performance.now() - started) / 1000)} s`);
}

/** GET /v1/emails/stats's answer from ClickHouse's rollups, each preset for the account and for one broadcast. */
async function timeMetrics(bench: Bench, ch: ClickHouse, accountId: number): Promise<number> {
  const reader = clickhouseMetrics({ read: (work) => work(ch) }, bench.db);
  const session = { accountId } as Session;
  let worst = 0;
  for (const scope of ['account', 'broadcast'] as const)
    for (const period of metricsPresets) {
      const query = EmailStatsQuery.parse({
        period,
        ...(scope === 'broadcast' ? { broadcastId: '1000042' } : {}),
      });
      await emailStats(bench.db, session, query, reader);
      const times: number[] = [];
      let sent = 0;
      if (
        period === 'lastYear' &&
        scope === 'account' &&
        (await emailStats(bench.db, session, query, reader)).stats.totals.sent === 0
      )
        throw new Error('no sends in the last year: the rollups are empty');
      for (let i = 0; i < 10; i += 1) {
        const started = performance.now();
        sent = (await emailStats(bench.db, session, query, reader)).stats.totals.sent;
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      const p95 = percentile(times, 95);
      worst = Math.max(worst, p95);
      console.log(
        `  metrics ${scope.padEnd(9)} ${period.padEnd(11)} p50 ${round1(percentile(times, 50))} ms, p95 ${round1(p95)} ms (sent ${sent})`,
      );
    }
  return round1(worst);
}

export async function eventsStore100m(): Promise<{ figure: number; unit: string; floor: number }> {
  const bench = await startBench();
  const directory = path.join(bench.config.dataDir, 'clickhouse-bench-100m');
  fs.mkdirSync(directory, { recursive: true });
  const ch = await connectClickHouse(`chdb:${directory}`);
  try {
    const account = await ensureBenchData(bench);
    await migrateClickHouse(ch, undefined);
    const stored = await loadHundredMillion(bench, ch, account.accountId);
    if (stored < copies * benchEvents)
      throw new Error(`ClickHouse holds ${stored} events, not ${copies * benchEvents}`);
    const [parts] = await ch.numbers(
      `SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'events' AND active`,
    );
    console.log(`  ${stored} events in ${parts} parts`);
    const event = await timeBoth('event condition', bench, ch, account.accountId, recentOrders);
    const three = await timeBoth('three conditions', bench, ch, account.accountId, threeConditions);
    const { rows: first } = await sql<{
      id: number;
    }>`select min(id)::int as id from people where account_id = ${account.accountId}`.execute(bench.db);
    await loadEmailEvents(ch, account.accountId, first[0]!.id);
    const metrics = await timeMetrics(bench, ch, account.accountId);
    console.log(`  metrics: worst p95 ${metrics} ms over the presets`);
    const slowest = event.herald >= three.herald ? event : three;
    return { figure: round1(slowest.herald / 1000), unit: 's', floor: slowest.floor / 1000 };
  } finally {
    await ch.close();
    await bench.stop();
  }
}
