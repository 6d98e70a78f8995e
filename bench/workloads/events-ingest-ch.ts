import path from 'node:path';
import { sql } from 'kysely';
import { connectClickHouse } from '../../apps/server/src/db/clickhouse.ts';
import { eventColumns } from '../../apps/server/src/db/clickhouse-schema.ts';
import { ingestLoad } from './event-ingest.ts';
import { round1, startBench, unbounded, type Bench } from './lib.ts';

/**
 * `events-ingest-ch`: batched ingest through the API (POST /v1/ingest/batch, the load of `event-ingest`) with events
 * kept in ClickHouse (EVENT_STORE=clickhouse on the embedded engine), counted until every event is stored in
 * ClickHouse: the API's answers, then the forwarder moving PostgreSQL's spool (docs/scaling.md). The floor is the
 * cheapest way to put as many events into ClickHouse: inserting generated rows straight into a table of the same
 * shape, in the forwarder's batches of 10,000, through the same engine in the same run.
 *
 * It runs on a database of its own (DATA_DIR/ingest-ch): a server on the ClickHouse store forwards every event of
 * PostgreSQL's events table, and the other workloads' accounts keep theirs in PostgreSQL.
 */

const knownPeople = 50_000;
const floorBatch = 10_000;

async function ingestAccount(
  bench: Bench,
): Promise<{ accountId: number; writeKey: string; known: string[] }> {
  const found = await sql<{ id: number; writeKey: string }>`select id, write_key as "writeKey" from accounts
    where name = 'bench-ingest-ch' and deleting_at is null order by id limit 1`.execute(bench.db);
  let account = found.rows[0];
  if (!account) {
    const res = await fetch(`${bench.base}/v1/accounts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: bench.config.publicUrl },
      body: JSON.stringify({ email: `bench-ingest-${Date.now()}@example.com` }),
    });
    if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
    const created = (await res.json()) as { accountId: number; writeKey: string };
    account = { id: created.accountId, writeKey: created.writeKey };
    await sql`update accounts set name = 'bench-ingest-ch' where id = ${account.id}`.execute(bench.db);
    await unbounded(bench.db, (trx) =>
      sql`insert into people (account_id, email, first_name, created_at, updated_at)
        select ${account!.id}, 'known-' || g || '@ingest.example', 'Known', now(), now()
        from generate_series(1, ${knownPeople}::int) g`.execute(trx),
    );
    console.log(`  created account ${account.id} with ${knownPeople} people`);
  }
  // identify calls set the plan trait, a field of the account (as on the bench account).
  await sql`insert into person_fields (account_id, name, type, title) values (${account.id}, 'plan', 'string', 'Plan')
    on conflict do nothing`.execute(bench.db);
  const known = Array.from({ length: knownPeople }, (_, i) => `known-${i + 1}@ingest.example`);
  return { accountId: Number(account.id), writeKey: account.writeKey, known };
}

export async function eventsIngestCh(): Promise<{ figure: number; unit: string; floor: number }> {
  if (process.env.DATABASE_URL)
    throw new Error(
      'events-ingest-ch runs on an embedded database of its own (DATA_DIR/ingest-ch): a server on the ClickHouse store moves every event of its database to ClickHouse. Unset DATABASE_URL.',
    );
  const dataDir = path.resolve(
    process.env.DATA_DIR ?? path.resolve(import.meta.dirname, '../../data'),
    'ingest-ch',
  );
  process.env.DATA_DIR = dataDir;
  process.env.EVENT_STORE = 'clickhouse';
  process.env.CLICKHOUSE_URL = `chdb:${path.join(dataDir, 'clickhouse')}`;
  const bench = await startBench();
  const ch = await connectClickHouse(process.env.CLICKHOUSE_URL);
  const events = bench.server.services.events;
  try {
    const { accountId, writeKey, known } = await ingestAccount(bench);
    await events.settle();
    const [before = 0] = await ch.numbers('SELECT max(id) FROM events WHERE account_id = {a:UInt64}', {
      a: accountId,
    });

    const started = performance.now();
    const load = await ingestLoad(bench, writeKey, known, 500);
    const answered = performance.now();
    await events.settle();
    const seconds = (performance.now() - started) / 1000;
    const [stored = 0, distinct = 0] = (
      await ch.rows<{ n: string; ids: string }>(
        'SELECT count() AS n, uniqExact(id) AS ids FROM events WHERE account_id = {a:UInt64} AND id > {b:UInt64}',
        { a: accountId, b: before },
      )
    ).flatMap((r) => [Number(r.n), Number(r.ids)]);
    // The load's events left in the spool (the account's segments keep writing entry events of their own meanwhile).
    const { rows: spooled } = await sql<{ n: number }>`select count(*)::int as n from events
      where account_id = ${accountId} and source = 'api'`.execute(bench.db);
    console.log(
      `  ${load.events} events answered in ${round1(load.seconds)} s (${Math.round(load.events / load.seconds)}/s); the spool drained ${round1((performance.now() - answered) / 1000)} s later; ClickHouse holds ${stored} (${distinct} ids), the spool ${spooled[0]!.n}`,
    );
    // The warm-up's ten batches are stored too: at least every event of the load, each once.
    if (stored !== distinct || stored < load.events || spooled[0]!.n !== 0)
      throw new Error(`stored ${stored} events (${distinct} ids) for ${load.events} sent`);

    // The floor: as many rows of the same shape straight into ClickHouse, 10,000 a statement.
    await ch.command('DROP TABLE IF EXISTS ingest_floor');
    await ch.command(
      `CREATE TABLE ingest_floor (${eventColumns}) ENGINE = MergeTree ORDER BY (account_id, person_id, created_at, id)`,
    );
    const floorStarted = performance.now();
    const now = Date.now();
    for (let first = 0; first < stored; first += floorBatch) {
      const rows = Array.from({ length: Math.min(floorBatch, stored - first) }, (_, i) => ({
        account_id: accountId,
        person_id: 1 + ((first + i) % knownPeople),
        created_at: new Date(now - (first + i)).toISOString().replace('T', ' ').replace('Z', ''),
        id: first + i + 1,
        type: 'track',
        name: 'Viewed product',
        url: null,
        data: JSON.stringify({ productId: (first + i) % 500, price: 19.9 }),
        source: 'api',
      }));
      await ch.insert('ingest_floor', rows);
    }
    const floorSeconds = (performance.now() - floorStarted) / 1000;
    await ch.command('DROP TABLE ingest_floor');
    const floorRate = Math.round(stored / floorSeconds);
    const rate = Math.round(load.events / seconds);
    console.log(
      `  floor: ${stored} rows inserted straight into ClickHouse in ${round1(floorSeconds)} s (${floorRate}/s)`,
    );
    return { figure: rate, unit: 'events/s', floor: floorRate };
  } finally {
    await bench.stop();
    await ch.close();
  }
}
