import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { connectClickHouse, type ClickHouse } from '../../src/db/clickhouse.ts';
import { faultsDataDir, secondsSince, waitUntil } from './herald-process.ts';
import { describeManyProcesses } from './many-processes-scenario.ts';

/**
 * The scenario of many-processes.test.ts (many-processes-scenario.ts) with every Herald process on EVENT_STORE=clickhouse
 * and one ClickHouse for all of them (docs/scaling.md, "Events on ClickHouse"): ClickHouse's HTTP interface over the
 * embedded engine, in a process of its own (clickhouse-http-process.ts). Events go to PostgreSQL's spool and every
 * process's forwarder moves them on, one forward at a time, while a worker is killed. Once the spool is empty, each
 * answered hit and each sent delivery's `sent` event is in ClickHouse once, and no event id is there twice.
 */
const root = path.resolve(import.meta.dirname, '../../../..');
const entry = path.join(import.meta.dirname, 'clickhouse-http-process.ts');

/** Inserts by deduplication token, as clickhouse-http-process.ts counts them. */
type Inserts = Record<string, { sent: number; answered: number }>;

/** clickhouse-http-process.ts started: its URL (with credentials), its counts of inserts, and its stop. */
async function startClickHouseProcess() {
  const directory = faultsDataDir('many-clickhouse');
  const child = spawn(process.execPath, ['--import', 'tsx', entry, path.join(directory, 'data')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HERALD_CLICKHOUSE_USER: 'herald',
      HERALD_CLICKHOUSE_PASSWORD: randomBytes(12).toString('hex'),
      HERALD_CLICKHOUSE_DATABASE: 'herald',
      // One forward's answer in ten is lost after its insert: those forwards are repeated under the same token.
      HERALD_CLICKHOUSE_LOSE_EVERY: '10',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  let stopping = false;
  const unexpectedExits: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0]!;
      if (out.includes('\n')) {
        child.stdout.off('data', onData);
        try {
          resolve((JSON.parse(line) as { url: string }).url);
        } catch {
          reject(new Error(`ClickHouse's process said ${line}`));
        }
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code, signal) => {
      if (!stopping) unexpectedExits.push(`exit ${code ?? signal}: ${log.join('').slice(-2000)}`);
      reject(new Error(`ClickHouse's process stopped while starting (${code ?? signal}): ${log.join('')}`));
    });
  });
  const address = new URL(url);
  return {
    url,
    unexpectedExits,
    async inserts(): Promise<Inserts> {
      const res = await fetch(`http://${address.host}/faults/inserts`);
      return (await res.json()) as Inserts;
    },
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await gone;
        clearTimeout(timer);
      }
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

let clickhouse: Awaited<ReturnType<typeof startClickHouseProcess>> | undefined;
let client: ClickHouse | undefined;
// Registered before the scenario's hooks: ClickHouse is up before the processes start, and stops after them.
beforeAll(async () => {
  clickhouse = await startClickHouseProcess();
  client = await connectClickHouse(clickhouse.url);
});
afterAll(async () => {
  await client?.close();
  await clickhouse?.stop();
});

/** Rows of `key` and count `n` from ClickHouse. */
const keyed = (query: string, params: Record<string, string | number>) =>
  client!.rows<{ key: string; n: number }>(query, params);
/** Seconds the spool took to empty once every hit was written. */
let drainSeconds = 0;

describeManyProcesses({
  title: 'faults: two API processes and two workers on one database, events on one ClickHouse',
  dataDirs: 'many-ch',
  apiPorts: [3831, 3832],
  apiMetricsPorts: [3833, 3834],
  workerMetricsPorts: [3835, 3836],
  store: {
    env: () => ({ EVENT_STORE: 'clickhouse', CLICKHOUSE_URL: clickhouse!.url }),
    // Every event of the two accounts has left PostgreSQL's spool: nothing left in `events`, no forward recorded and
    // not finished. The forwarders of the processes under test move it (the suite's own app forwards nothing).
    async settle({ db, broadcast, flow }) {
      const accounts = [broadcast.accountId, flow.accountId];
      const started = performance.now();
      const spool = async () => {
        const { rows } = await sql<{ events: number; forwards: number }>`
          select (select count(*) from events where account_id = any(${accounts}::bigint[]))::int as events,
            (select count(*) from event_forwards where account_id = any(${accounts}::bigint[]))::int as forwards`.execute(
          db,
        );
        return rows[0]!;
      };
      await waitUntil(
        async () => {
          const left = await spool();
          return left.events + left.forwards === 0 ? true : undefined;
        },
        60_000,
        async () => `the spool still holds ${JSON.stringify(await spool())}`,
        250,
      );
      drainSeconds = secondsSince(started);
    },
    // As storedHitRows reads them from PostgreSQL.
    hits: ({ broadcast }) =>
      keyed(
        `SELECT concat(toString(person_id), ' ', ifNull(name, ''), ' ', JSONExtractString(data, 'link')) AS key,
           toUInt32(count()) AS n
         FROM events
         WHERE account_id = {account:UInt64} AND type = 'email' AND name IN ('opened', 'clicked')
           AND trim(BOTH '"' FROM JSONExtractRaw(data, 'broadcastId')) = {id:String}
         GROUP BY key`,
        { account: broadcast.accountId, id: String(broadcast.broadcastId) },
      ),
    sentEvents: (_db, accountId, field, id) =>
      keyed(
        `SELECT concat(toString(person_id), ' ', JSONExtractString(data, 'messageId')) AS key, toUInt32(count()) AS n
         FROM events
         WHERE account_id = {account:UInt64} AND type = 'email' AND name = 'sent'
           AND trim(BOTH '"' FROM JSONExtractRaw(data, {field:String})) = {id:String}
         GROUP BY key`,
        { account: accountId, field, id: String(id) },
      ),
    async checks() {
      // No event twice under one id, in the whole table: what the deduplication of repeated forwards must keep.
      const [ids] = await client!.rows<{ events: number; ids: number }>(
        'SELECT toUInt64(count()) AS events, toUInt64(uniqExact(id)) AS ids FROM events',
      );
      const twice = ids!.events - ids!.ids;
      const inserts = Object.values(await clickhouse!.inserts());
      const repeated = inserts.filter((i) => i.answered > 1).length;
      const retried = inserts.filter((i) => i.sent > 1).length;
      console.log(
        `  ClickHouse: the spool emptied ${drainSeconds} s after the last hit was written; ${ids!.events} events, ${ids!.ids} ids; ${inserts.length} forwards inserted, ${retried} sent again, ${repeated} stored again (dropped by the table's deduplication)`,
      );
      return {
        faults: { eventsTwiceUnderOneId: twice, clickHouseExits: clickhouse!.unexpectedExits.length },
        // The answers HERALD_CLICKHOUSE_LOSE_EVERY lost (and any kill between a forward's insert and its delete):
        // forwards whose insert the engine took twice, the second dropped by the table's deduplication.
        happened: { forwardsStoredAgain: repeated },
        figure: `on ClickHouse: spool empty ${drainSeconds} s after the last hit, ${ids!.events} events, ${twice} twice under one id; ${inserts.length} forwards, ${repeated} stored again and deduplicated`,
      };
    },
  },
  figure: { order: 61, part: 'many-processes-clickhouse', label: '2 API + 2 workers, events on ClickHouse' },
  // Beside the PostgreSQL file's run, on the same two cores: its share is smaller.
  ciShare: 0.15,
});
