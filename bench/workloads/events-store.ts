import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { to as copyTo } from 'pg-copy-streams';
import type { ConditionNode } from '@herald/contracts';
import { eventConditionsOf, segmentFilter, type CompileContext } from '@herald/segments';
import { connectClickHouse, type ClickHouse } from '../../apps/server/src/db/clickhouse.ts';
import { migrateClickHouse } from '../../apps/server/src/db/clickhouse-schema.ts';
import { answerEventConditions } from '../../apps/server/src/db/event-store-clickhouse.ts';
import { withAccount } from '../../apps/server/src/db/tenancy.ts';
import { loadCompileContext } from '../../apps/server/src/features/segments/segment-context.ts';
import { ensureBenchData } from './bench-data.ts';
import { benchEvents, percentile, round1, startBench, type Bench } from './lib.ts';
import { threeConditions } from './segments.ts';

/**
 * `events-store-10m`: the bench account's 10M events in both stores, and the same segment counts on each, in one run.
 * PostgreSQL answers event conditions from its events table (the default store); ClickHouse (embedded through chdb,
 * the engine Herald uses for EVENT_STORE=clickhouse) answers each event condition with a set of people, which the
 * same PostgreSQL count then reads (db/event-store-clickhouse.ts). The figure is ClickHouse's speed-up: PostgreSQL's
 * median over ClickHouse's, for the slower of the two segments.
 */

/** One event condition over the 10M events: ordered lately (a count of the account's event log, no people filter). */
export const recentOrders: ConditionNode[] = [
  {
    type: 'event',
    name: 'Order completed',
    count: { operator: 'atLeast', value: 2 },
    window: { type: 'inTheLast', days: 90 },
    properties: [],
  },
];

const runs = 7;

/** The account's events in ClickHouse: copied from PostgreSQL (COPY as TabSeparated) when the counts differ. */
export async function loadClickHouse(bench: Bench, ch: ClickHouse, accountId: number): Promise<void> {
  // A table made before the by_name projection (clickhouse-schema.ts) is made again.
  const [create] = await ch.rows<{ statement: string }>('SHOW CREATE TABLE events');
  if (!create?.statement.includes('PROJECTION by_name')) {
    await ch.command('DROP TABLE events');
    await migrateClickHouse(ch, undefined);
  }
  const [inClickHouse = 0, lastId = 0] = (
    await ch.rows<{ n: number; last: number }>(
      'SELECT count() AS n, max(id) AS last FROM events WHERE account_id = {a:UInt64}',
      { a: accountId },
    )
  ).flatMap((r) => [Number(r.n), Number(r.last)]);
  const { rows } = await sql<{ n: number; above: number }>`select count(*)::int as n,
    count(*) filter (where id > ${lastId})::int as above from events where account_id = ${accountId}`.execute(
    bench.db,
  );
  const inPostgres = rows[0]!.n;
  // The server's own workers add a few events between runs (segments' entries): only those are copied.
  let from = lastId;
  if (inClickHouse + rows[0]!.above !== inPostgres) {
    await ch.command('DELETE FROM events WHERE account_id = {a:UInt64}', { a: accountId });
    from = 0;
  }
  const missing = from === 0 ? inPostgres : rows[0]!.above;
  if (missing === 0) {
    console.log(`  ClickHouse already holds the account's ${inPostgres} events: reused`);
    return;
  }
  console.log(`  copying ${missing} events to ClickHouse`);
  const started = performance.now();
  const client = await bench.server.services.pool.connect();
  try {
    await client.query('set statement_timeout = 0');
    const stream = client.query(
      copyTo(`copy (select account_id, coalesce(person_id, 0), to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'),
        id, type, name, url, data::text, source from events where account_id = ${Number(accountId)} and id > ${Number(from)}) to stdout`),
    );
    let pending: Buffer[] = [];
    let size = 0;
    let copied = 0;
    const insert = async (data: Buffer) => {
      if (data.length === 0) return;
      copied += data.reduce((n, byte) => (byte === 10 ? n + 1 : n), 0);
      await ch.insertTabSeparated('events', data);
      console.log(`  copied ${copied}/${missing} (${round1((performance.now() - started) / 1000)} s)`);
    };
    for await (const piece of stream as AsyncIterable<Buffer>) {
      pending.push(piece);
      size += piece.length;
      if (size >= 64 * 1024 * 1024) {
        // Cut at the last full line; the rest starts the next chunk.
        const all = Buffer.concat(pending);
        const cut = all.lastIndexOf(10) + 1;
        await insert(all.subarray(0, cut));
        pending = [all.subarray(cut)];
        size = pending[0]!.length;
      }
    }
    await insert(Buffer.concat(pending));
  } finally {
    client.release();
  }
  await ch.command('OPTIMIZE TABLE events FINAL');
  console.log(`  loaded in ${round1((performance.now() - started) / 1000)} s`);
}

/** How many people the conditions select, with event conditions read on `store`. */
export async function count(
  bench: Bench,
  ch: ClickHouse,
  accountId: number,
  nodes: ConditionNode[],
  store: 'postgres' | 'clickhouse',
  now: Date,
): Promise<{ n: number; askMs: number; listed: number }> {
  return withAccount(bench.db, accountId, async (db) => {
    await sql`set local statement_timeout = 0`.execute(db);
    const { ctx } = await loadCompileContext(db, accountId, now);
    const asked = performance.now();
    const compiled: CompileContext =
      store === 'clickhouse' ? await answerEventConditions(ch, ctx, eventConditionsOf(nodes, ctx)) : ctx;
    const askMs = performance.now() - asked;
    const listed = [...(compiled.eventSets?.values() ?? [])].reduce((n, set) => n + set.ids.length, 0);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from people p where ${segmentFilter(nodes, compiled)}`.execute(db);
    return { n: rows[0]!.n, askMs, listed };
  });
}

/** Median ms of `runs` counts after a warm-up, checking both stores count the same people. */
async function timeCounts(
  label: string,
  bench: Bench,
  ch: ClickHouse,
  accountId: number,
  nodes: ConditionNode[],
): Promise<{ postgres: number; clickhouse: number }> {
  const medians: Record<'postgres' | 'clickhouse', number> = { postgres: 0, clickhouse: 0 };
  // One instant for every count: "in the last 90 days" must mean the same days on both stores.
  const now = new Date();
  const answers: Record<string, number> = {};
  for (const store of ['postgres', 'clickhouse'] as const) {
    const first = await count(bench, ch, accountId, nodes, store, now);
    answers[store] = first.n;
    const timings: number[] = [];
    const asking: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const started = performance.now();
      asking.push((await count(bench, ch, accountId, nodes, store, now)).askMs);
      timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    asking.sort((a, b) => a - b);
    medians[store] = round1(percentile(timings, 50));
    const ask =
      store === 'clickhouse'
        ? ` (ClickHouse's answer: ${first.listed} people listed, median ${round1(percentile(asking, 50))} ms)`
        : '';
    console.log(
      `  ${label} on ${store}: ${answers[store]} people; median ${medians[store]} ms, p95 ${round1(percentile(timings, 95))} ms${ask}`,
    );
  }
  if (answers.postgres !== answers.clickhouse)
    throw new Error(`${label}: PostgreSQL counts ${answers.postgres}, ClickHouse ${answers.clickhouse}`);
  console.log(`  ${label}: ClickHouse ${round1(medians.postgres / medians.clickhouse)}× faster`);
  return medians;
}

export async function eventsStore10m(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench();
  const directory = path.join(bench.config.dataDir, 'clickhouse-bench');
  fs.mkdirSync(directory, { recursive: true });
  const ch = await connectClickHouse(`chdb:${directory}`);
  try {
    const account = await ensureBenchData(bench);
    await migrateClickHouse(ch, undefined);
    await loadClickHouse(bench, ch, account.accountId);
    const [stored] = await ch.numbers('SELECT count() FROM events WHERE account_id = {a:UInt64}', {
      a: account.accountId,
    });
    if ((stored ?? 0) < benchEvents) throw new Error(`ClickHouse holds ${stored} events, not ${benchEvents}`);
    const event = await timeCounts('event condition', bench, ch, account.accountId, recentOrders);
    const three = await timeCounts('three conditions', bench, ch, account.accountId, threeConditions);
    const speedUp = Math.min(event.postgres / event.clickhouse, three.postgres / three.clickhouse);
    return { figure: round1(speedUp), unit: 'x' };
  } finally {
    await ch.close();
    await bench.stop();
  }
}
