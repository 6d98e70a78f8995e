import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.ts';
import { writeFigure } from '../figures.ts';
import type { TestContext } from '../helpers.ts';
import { faultsContext, isFull, testTimeoutMs } from './context.ts';
import {
  faultsDataDir,
  heraldProcess,
  secondsSince,
  waitUntil,
  type HeraldProcess,
} from './herald-process.ts';
import { broadcastState, prepareSendAccount, sendBroadcast, sendTotals } from './send-setup.ts';
import { startSink, type Sink } from './sink.ts';

const people = Number(process.env.FAULTS_RESTART_PEOPLE ?? (isFull ? 10_000 : 3_000));
/** How long PostgreSQL stays down between its fast stop and its start. */
const downMs = isFull ? 10_000 : 3_000;
const pgPort = 54371;

let ctx: TestContext;
let sink: Sink;
let herald: HeraldProcess;
let postgres: EmbeddedPostgres;
let pgDataDir: string;
beforeAll(async () => {
  sink = await startSink();
  // A PostgreSQL of the test's own (the embedded one Herald ships), so the test can stop and start it.
  pgDataDir = faultsDataDir('postgres');
  postgres = await startEmbeddedPostgres({ dataDir: pgDataDir, port: pgPort, log: () => undefined });
  const dataDir = faultsDataDir('postgres-restart');
  // One sender thread at 500 messages a second: the send is still going when PostgreSQL goes away.
  herald = heraldProcess({
    DATABASE_URL: postgres.url,
    DATA_DIR: dataDir,
    PORT: '3814',
    SMTP_URL: sink.url,
    SEND_THREADS: '1',
    SMTP_RATE_PER_SECOND: '500',
  });
  await herald.start();
  ctx = await faultsContext(dataDir, { DATABASE_URL: postgres.url });
});
afterAll(async () => {
  await herald?.kill();
  await ctx?.close();
  await sink?.stop();
  await postgres?.stop();
});

/** `query` while PostgreSQL may be down: undefined instead of an error. */
async function whenUp<T>(query: () => Promise<T>): Promise<T | undefined> {
  try {
    return await query();
  } catch {
    return undefined;
  }
}

describe('faults: PostgreSQL restarted in the middle of a send', () => {
  it(
    `sends to ${people} people across a PostgreSQL restart: the sender waits, goes on, and each person gets one email`,
    async () => {
      const { owner, accountId, emailId, addresses } = await prepareSendAccount(
        ctx,
        people,
        'restart.faults.example.com',
      );
      const started = performance.now();
      const broadcastId = await sendBroadcast(owner, emailId);
      await waitUntil(
        async () => (sink.counts().received >= Math.min(300, people / 5) ? true : undefined),
        120_000,
        () => JSON.stringify(sink.counts()),
        20,
      );
      const logBefore = herald.log.length;
      const atStop = sink.counts().received;
      await postgres.stop();
      console.log(`  PostgreSQL stopped at ${secondsSince(started)} s (${atStop} received)`);
      // Not a wait for work: PostgreSQL stays down as long as the scenario says.
      await new Promise((r) => setTimeout(r, downMs));
      const duringDown = sink.counts().received;
      postgres = await startEmbeddedPostgres({ dataDir: pgDataDir, port: pgPort, log: () => undefined });
      console.log(
        `  PostgreSQL started again at ${secondsSince(started)} s (${duringDown} received meanwhile)`,
      );
      const state = () => broadcastState(ctx, accountId, broadcastId);
      const done = await waitUntil(
        async () => {
          if (herald.unexpectedExits.length)
            throw new Error(`the server stopped: ${herald.unexpectedExits.join('\n')}`);
          const now = await whenUp(state);
          return now && now.status !== 'sending' && now.pending + now.sending === 0 ? now : undefined;
        },
        240_000,
        async () =>
          `${JSON.stringify(await whenUp(state))}; the server logged:\n${herald.log.slice(-40).join('\n')}`,
        500,
      );
      // No row is left to send: whatever was still on its way is counted once the sink has no message arriving.
      await sink.idle();
      const totals = sendTotals(sink, addresses);
      const logged = herald.log.slice(logBefore).filter((line) => !line.includes('Herald is running'));
      console.log(
        `  broadcast ${done.status} at ${secondsSince(started)} s: ${JSON.stringify(done)}; sink ${JSON.stringify(sink.counts())}; ${logged.length} lines logged while PostgreSQL was away, e.g.:\n    ${logged.slice(0, 5).join('\n    ')}`,
      );
      writeFigure(
        'faults',
        40,
        'postgres-restart',
        `postgres-restart: ${people} sent, ${totals.lost} lost, ${totals.duplicated} duplicated (${secondsSince(started)} s)`,
      );
      // The process stayed up: one start, no exit.
      expect(herald.unexpectedExits).toEqual([]);
      expect(herald.isRunning()).toBe(true);
      expect(herald.starts).toBe(1);
      // It said what went wrong meanwhile.
      expect(logged.length).toBeGreaterThan(0);
      // Nothing is killed here: no message may be missing, not even one cut at its final dot.
      expect({ lost: totals.lost + totals.lostAtDot, duplicated: totals.duplicated }).toEqual({
        lost: 0,
        duplicated: 0,
      });
      expect(done).toMatchObject({ status: 'sent', sent: people, failed: 0, other: 0, events: people });
    },
    testTimeoutMs,
  );
});
