import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import { writeFigure } from '../figures.ts';
import { testDatabaseUrl, type TestContext } from '../helpers.ts';
import { faultsContext, isFull, testTimeoutMs } from './context.ts';
import { buildWaitFlow, flowProgress, flowTotals } from './flow-setup.ts';
import {
  between,
  faultsDataDir,
  heraldProcess,
  secondsSince,
  waitUntil,
  type HeraldProcess,
} from './herald-process.ts';
import { compareCounts, httpGet, sendHitLoad } from './hit-load.ts';
import { metric, readSent, sum, type Worker } from './process-metrics.ts';
import {
  broadcastDone,
  broadcastState,
  prepareSendAccount,
  sendBroadcast,
  sendTotals,
  sentDeliveries,
} from './send-setup.ts';
import { startSink, type Sink } from './sink.ts';

/**
 * Herald as several processes on one PostgreSQL (docs/scaling.md, "API and workers apart"): two `--role=api` and two
 * `--role=worker` processes, with at once a broadcast, a flow with a wait, tracking hits over both API processes and
 * one worker killed mid-send. many-processes.test.ts runs it on the PostgreSQL event store,
 * many-processes-clickhouse.test.ts on ClickHouse. Its counts: the issue's with FAULTS_FULL=1 (20,000 people, 5,000
 * in the flow, 100,000 hits), else `ciShare` of them; each settable.
 */
function sizes(ciShare: number) {
  const size = (name: string, full: number) =>
    Number(process.env[name] ?? (isFull ? full : Math.round(full * ciShare)));
  return {
    people: size('FAULTS_MANY_PEOPLE', 20_000),
    flowPeople: size('FAULTS_MANY_FLOW_PEOPLE', 5_000),
    hits: size('FAULTS_MANY_HITS', 100_000),
  };
}
const kills = Number(process.env.FAULTS_MANY_KILLS ?? 2);
/** Seconds from the flow's entry to the end of its wait (as flow-kill.test.ts): its mail goes out mid-broadcast. */
const sleepSeconds = 20;

/** Counts by key, as a store answers them. */
export type KeyedCounts = { key: string; n: number }[];
/** What a `sent` email event's data names: its broadcast, or its flow. */
export type SentField = 'broadcastId' | 'flowId';

/** What a run sent, for the event store to say what it kept of it. */
export interface ManyProcessesRun {
  db: Database;
  broadcast: { accountId: number; broadcastId: number };
  flow: { accountId: number; flowId: number };
}

/** What the event store checks beyond the hits and the `sent` events, and says of itself in the figures line. */
export interface StoreChecks {
  /** Faults the store counts, each expected to be 0. */
  faults: Record<string, number>;
  /** What must have happened at least once for the run to test the store. */
  happened: Record<string, number>;
  /** What the figures line says of the store ('' for nothing). */
  figure: string;
}

/** The event store a run writes to, asked once every mail is sent and every answered hit written. */
export interface EventStoreUnderTest {
  /** Settings of every Herald process and of the suite's own app (EVENT_STORE…); read when they start. */
  env(): Record<string, string>;
  /** Wait until the store holds every event of the run (ClickHouse: until the spool is empty). */
  settle?(run: ManyProcessesRun): Promise<void>;
  /** The broadcast's opens and clicks by `<person> <opened|clicked> <link>`, as hit-load.ts keys answered hits. */
  hits(run: ManyProcessesRun): Promise<KeyedCounts>;
  /** The account's `sent` email events whose data names `field`: `id`, by `<person> <Message-ID>`. */
  sentEvents(db: Database, accountId: number, field: SentField, id: number): Promise<KeyedCounts>;
  /** What else the store checks, once `sentEvents` has answered. */
  checks?(run: ManyProcessesRun): Promise<StoreChecks>;
}

export interface ManyProcessesOptions {
  /** The describe block's title. */
  title: string;
  /** Data directories' names start with it. */
  dataDirs: string;
  /** Ports of the API processes, of their metrics servers (their hit spools) and of the workers' metrics servers. */
  apiPorts: number[];
  apiMetricsPorts: number[];
  workerMetricsPorts: number[];
  store: EventStoreUnderTest;
  /** The figure's place and part (writeFigure, suite `faults`) and the words it starts with. */
  figure: { order: number; part: string; label: string };
  /** The share of the issue's counts a run without FAULTS_FULL makes (the fault suite's files share two cores). */
  ciShare: number;
}

/** The scenario as one describe block of the calling file, with its own processes, sink and suite app. */
export function describeManyProcesses(options: ManyProcessesOptions) {
  const { apiPorts, apiMetricsPorts, workerMetricsPorts, store } = options;
  const { people, flowPeople, hits } = sizes(options.ciShare);
  let ctx: TestContext;
  let sink: Sink;
  let apis: HeraldProcess[] = [];
  let workers: Worker[] = [];
  const allProcesses = () => [...apis, ...workers.map((w) => w.herald)];

  beforeAll(async () => {
    sink = await startSink();
    const storeEnv = store.env();
    // The API processes share one data directory (uploaded files, docs/scaling.md); each worker has its own (its
    // send journals), kept across its restarts.
    const sharedDir = faultsDataDir(`${options.dataDirs}-api`);
    ctx = await faultsContext(sharedDir, storeEnv);
    // The suite's app reads events where the processes write them, but forwards none of them itself (ClickHouse: the
    // processes under test move the spool).
    await ctx.services.events.stop();
    // One sender thread per worker at 1,000 messages a second, batches of 250 (as broadcast-kill.test.ts).
    const common = {
      DATABASE_URL: testDatabaseUrl(),
      SMTP_URL: sink.url,
      SEND_THREADS: '1',
      SEND_BATCH_SIZE: '250',
      SMTP_RATE_PER_SECOND: '1000',
      ...storeEnv,
    };
    apis = apiPorts.map((port, i) =>
      heraldProcess(
        { ...common, DATA_DIR: sharedDir, PORT: String(port), METRICS_PORT: String(apiMetricsPorts[i]) },
        ['--role=api'],
      ),
    );
    workers = workerMetricsPorts.map((metricsPort, i) => ({
      name: `worker ${i + 1}`,
      herald: heraldProcess(
        {
          ...common,
          DATA_DIR: faultsDataDir(`${options.dataDirs}-worker-${i + 1}`),
          METRICS_PORT: String(metricsPort),
        },
        ['--role=worker'],
      ),
      metricsPort,
      sentByStart: [],
    }));
    // All four at once: migrations run under a lock at every start.
    await Promise.all(allProcesses().map((p) => p.start()));
  });
  afterAll(async () => {
    for (const p of allProcesses()) await p?.kill();
    await ctx?.close();
    await sink?.stop();
  });

  describe(options.title, () => {
    it(
      `sends a broadcast to ${people} people and runs ${flowPeople} through a flow while ${hits} tracking hits come in over two API processes and one of two workers is killed ${kills} times: every email, step and answered hit once`,
      async () => {
        // Each API process is alive and ready; so is each worker, on its metrics server (it has no API).
        for (const port of apiPorts) {
          const alive = await httpGet(port, '/healthz');
          expect({ port, status: alive.status, body: JSON.parse(alive.body) }).toEqual({
            port,
            status: 200,
            body: { ok: true },
          });
          expect({ port, status: (await httpGet(port, '/readyz')).status }).toEqual({ port, status: 200 });
        }
        for (const worker of workers) {
          expect((await httpGet(worker.metricsPort, '/healthz')).status).toBe(200);
          expect((await httpGet(worker.metricsPort, '/readyz')).status).toBe(200);
          expect(await readSent(worker)).toBe(0);
        }

        // The broadcast's email links to a few pages: its hits take turns over the pixel and the links (hit-load.ts).
        const broadcast = await prepareSendAccount(ctx, people, 'many.faults.example.com');
        const links = Array.from(
          { length: Math.max(2, Math.ceil(Math.ceil(hits / people) / 3) - 1) },
          (_, i) => `https://shop.example/many/${i + 1}?from=email`,
        );
        const html = `<html><body><p>Hi {{ person.firstName | default: "there" }}</p>${links
          .map((link, i) => `<p><a href="${link}">Offer ${i + 1}</a></p>`)
          .join('')}<a href="{{ unsubscribe_url }}">Unsubscribe</a></body></html>`;
        const patched = await broadcast.owner.client.patch(`/v1/emails/${broadcast.emailId}`, {
          html,
          editor: { type: 'html', state: null, html },
        });
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
        const flow = await prepareSendAccount(ctx, flowPeople, 'many-flow.faults.example.com');
        const wakeAt = new Date(Date.now() + sleepSeconds * 1000);
        const { flowId, steps } = await buildWaitFlow(
          flow.owner.client,
          flow.emailId,
          wakeAt,
          'Many processes',
        );

        const started = performance.now();
        const broadcastId = await sendBroadcast(broadcast.owner, broadcast.emailId);
        // One statement tags everyone in the flow's account: the tags trigger enters them all.
        await sql`update people set tags = array_append(tags, 'enter-flow') where account_id = ${flow.accountId}`.execute(
          ctx.services.db,
        );
        const state = () => broadcastState(ctx, broadcast.accountId, broadcastId);
        const hitLoad = sendHitLoad({
          db: ctx.services.db,
          secret: ctx.services.secret,
          accountId: broadcast.accountId,
          broadcastId,
          emailId: broadcast.emailId,
          people,
          links,
          total: hits,
          ports: apiPorts,
          inFlight: 16,
          finished: async () => {
            const now = await state();
            return now.status !== 'sending' && now.pending + now.sending === 0;
          },
        });
        // The workers' counters, read four times a second (a kill loses what a worker sent since the last read).
        const reading = setInterval(() => {
          for (const worker of workers) void readSent(worker);
        }, 250);

        // One worker, the first seen sending, is killed `kills` times. Each kill lands at a random moment once mail
        // goes out again after the previous restart (a worker's counter rose), whichever worker sends it: a send is
        // one job, run by one worker at a time, and after a restart either worker may take it up (docs/scaling.md).
        let victim: Worker | undefined;
        /** Each kill: what the victim had sent since its start (0: idle), and the worker whose mail let the kill come. */
        const killLog: { victimSent: number; movedBy: string }[] = [];
        try {
          for (let i = 1; i <= kills; i++) {
            const before = await Promise.all(workers.map(async (w) => (await readSent(w)) ?? 0));
            const mover = await waitUntil(
              async () => {
                const now = await state();
                if (now.pending + now.sending === 0 && now.sent > 0) return null;
                for (const [w, worker] of workers.entries())
                  if (((await readSent(worker)) ?? 0) > before[w]!) return worker;
                return undefined;
              },
              120_000,
              async () =>
                `no mail went out after kill ${i - 1}: ${JSON.stringify(await state())}, sent by start ${JSON.stringify(workers.map((w) => w.sentByStart))}`,
              50,
            );
            if (!mover) break;
            victim ??= mover;
            // Not a wait for work: the kill lands at a random moment of the send (the scenario).
            await new Promise((r) => setTimeout(r, between(0, 800)));
            await readSent(victim);
            const victimSent = victim.sentByStart[victim.herald.starts - 1] ?? 0;
            await victim.herald.kill();
            killLog.push({ victimSent, movedBy: mover.name });
            console.log(
              `  kill ${i} of ${victim.name} at ${secondsSince(started)} s (${victimSent > 0 ? `sending: ${victimSent} since its start` : `idle: ${mover.name} had the send`}); the sink has ${sink.counts().received}`,
            );
            await victim.herald.start();
            expect((await httpGet(victim.metricsPort, '/readyz')).status).toBe(200);
          }
          const landed = killLog.length;

          const done = await broadcastDone(ctx, broadcast.accountId, broadcastId);
          const broadcastSeconds = secondsSince(started);
          const flowDone = await waitUntil(
            async () => {
              const now = await flowProgress(ctx.services.db, flow.accountId, flowId);
              return now.live === 0 && now.left === 0 && now.done + now.other > 0 ? now : undefined;
            },
            240_000,
            async () => JSON.stringify(await flowProgress(ctx.services.db, flow.accountId, flowId)),
            500,
          );
          const flowSeconds = secondsSince(started);
          const sent = await hitLoad;
          // No row is left to send: anything still on its way is counted once the sink has no message arriving.
          await sink.idle();
          for (const worker of workers) await readSent(worker);
          // Every answered hit is in the API processes' spools or written: once both spools are empty, all are written.
          const spools = () =>
            Promise.all(
              apiMetricsPorts.map((port) => metric(port, 'herald_spool_size{spool="tracking_hits"}')),
            );
          await waitUntil(
            async () => ((await spools()).every((size) => size === 0) ? true : undefined),
            30_000,
            async () => `hits still waiting in the API processes: ${JSON.stringify(await spools())}`,
            250,
          );
          const run = {
            db: ctx.services.db,
            broadcast: { accountId: broadcast.accountId, broadcastId },
            flow: { accountId: flow.accountId, flowId },
          };
          await store.settle?.(run);
          const storedHits = compareCounts(await store.hits(run), sent.answered);
          // Each sent delivery's `sent` event once, by person and Message-ID.
          const sentEvents = {
            broadcast: compareCounts(
              await store.sentEvents(ctx.services.db, broadcast.accountId, 'broadcastId', broadcastId),
              await sentDeliveries(ctx.services.db, broadcast.accountId, 'broadcast', broadcastId),
            ),
            flow: compareCounts(
              await store.sentEvents(ctx.services.db, flow.accountId, 'flowId', flowId),
              await sentDeliveries(ctx.services.db, flow.accountId, 'flow'),
            ),
          };
          const storeChecks: StoreChecks = (await store.checks?.(run)) ?? {
            faults: {},
            happened: {},
            figure: '',
          };

          const flowCheck = await flowTotals(ctx.services.db, flow.accountId, flowId, steps);
          const broadcastTotals = sendTotals(sink, broadcast.addresses);
          const flowMail = sendTotals(sink, flow.addresses);
          const cutAtDot = broadcastTotals.lostAtDot + flowMail.lostAtDot;
          const ready = await Promise.all([
            ...apiPorts.map(async (port) => (await httpGet(port, '/readyz')).status),
            ...workers.map(async (w) => (await httpGet(w.metricsPort, '/readyz')).status),
          ]);
          const answered = sum(sent.answeredByApi);
          const hitsPerSecond = Math.round(answered / Math.max(sent.seconds, 0.1));
          const mailBy = workers.map((w) => sum(w.sentByStart));
          const lost = broadcastTotals.lost + flowMail.lost + flowCheck.short + (flowPeople - flowCheck.runs);
          const duplicated = broadcastTotals.duplicated + flowMail.duplicated + flowCheck.twice;
          const idleKills = killLog.filter((k) => k.victimSent === 0).length;
          console.log(
            `  broadcast ${done.status} at ${broadcastSeconds} s after ${landed} kills: ${JSON.stringify(done)}; flow done at ${flowSeconds} s: ${JSON.stringify(flowDone)}, ${JSON.stringify(flowCheck)}`,
          );
          console.log(
            `  sink ${JSON.stringify(sink.counts())}; broadcast ${JSON.stringify(broadcastTotals)}; flow ${JSON.stringify(flowMail)}; mail by worker and start (metrics): ${workers.map((w) => `${w.name} ${w.sentByStart.join(' + ')}`).join(', ')}${mailBy.every((n) => n > 0) ? '' : ' (one worker sent nothing)'}`,
          );
          console.log(
            `  hits: ${sent.made} made for ${sent.messages} messages, ${answered} answered (${sent.answeredByApi.join(' + ')} by API process) in ${sent.seconds} s (${hitsPerSecond}/s, peak ${sent.peakPerSecond}/s), ${sent.failures.length} failed${sent.failures.length ? ` (${sent.failures.slice(0, 3).join('; ')})` : ''}; stored ${JSON.stringify(storedHits)}; sent events ${JSON.stringify(sentEvents)}${Object.keys(storeChecks.faults).length ? `; ${JSON.stringify(storeChecks.faults)}` : ''}`,
          );
          writeFigure(
            'faults',
            options.figure.order,
            options.figure.part,
            `${options.figure.label}: broadcast ${people} and flow ${flowPeople} x ${steps} steps, ${landed} kills of one worker (${landed - idleKills} while it sent), ${lost} lost, ${duplicated} duplicated, ${cutAtDot} cut at the final dot (${broadcastSeconds} s, flow ${flowSeconds} s); ${answered} hits in ${sent.seconds} s (${hitsPerSecond}/s, peak ${sent.peakPerSecond}/s; ${sent.answeredByApi.join(' + ')} by API process), ${storedHits.missing} lost, ${storedHits.extra} extra; mail ${mailBy.join(' + ')} by worker${storeChecks.figure ? `; ${storeChecks.figure}` : ''}`,
          );

          for (const p of allProcesses()) expect(p.unexpectedExits).toEqual([]);
          expect(ready).toEqual([200, 200, 200, 200]);
          expect(landed).toBe(kills);
          // The broadcast: everyone once, as broadcast-kill.test.ts checks it; its `sent` events with the store's below.
          expect({ lost: broadcastTotals.lost, duplicated: broadcastTotals.duplicated }).toEqual({
            lost: 0,
            duplicated: 0,
          });
          expect(done).toMatchObject({ status: 'sent', sent: people, failed: 0, other: 0 });
          // The flow: each step once per run and its email once, as flow-kill.test.ts checks it.
          expect({ lost: flowMail.lost, duplicated: flowMail.duplicated }).toEqual({
            lost: 0,
            duplicated: 0,
          });
          expect(flowCheck).toEqual({
            runs: flowPeople,
            twice: 0,
            short: 0,
            executed: flowPeople * steps,
            tagged: flowPeople,
          });
          expect(flowDone).toMatchObject({ done: flowPeople, other: 0 });
          // A kill between a journal line and its dot may lose that one message (the send journal's documented limit).
          expect(cutAtDot).toBeLessThanOrEqual(landed);
          // The hits: every one answered, half by each API process, and each answered one stored once.
          expect(sent.failures).toEqual([]);
          expect({ made: sent.made, answered }).toEqual({ made: hits, answered: hits });
          expect(sent.answeredByApi).toEqual([Math.ceil(hits / 2), Math.floor(hits / 2)]);
          expect(storedHits).toEqual({ stored: hits, missing: 0, extra: 0 });
          // Each sent delivery's `sent` event once in the store, and nothing else the store counts as a fault.
          expect(sentEvents).toEqual({
            broadcast: { stored: people, missing: 0, extra: 0 },
            flow: { stored: flowPeople, missing: 0, extra: 0 },
          });
          expect(storeChecks.faults).toEqual(
            Object.fromEntries(Object.keys(storeChecks.faults).map((k) => [k, 0])),
          );
          for (const [what, times] of Object.entries(storeChecks.happened))
            expect(times, what).toBeGreaterThan(0);
          // The workers: the victim was sending when it was first killed, and after each restart mail went out again
          // from a live worker (the other one, or the victim after its restart) before the next kill came; both stayed
          // up. Each counter is its own process's: together they never exceed what the sink took.
          expect(killLog[0]!.victimSent).toBeGreaterThan(0);
          expect(sum(mailBy)).toBeLessThanOrEqual(sink.counts().received);
        } finally {
          clearInterval(reading);
        }
      },
      testTimeoutMs,
    );
  });
}
