import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFigure } from '../figures.ts';
import type { TestContext } from '../helpers.ts';
import { faultsContext, isFull, testTimeoutMs } from './context.ts';
import {
  between,
  faultsDataDir,
  heraldProcess,
  secondsSince,
  waitUntil,
  type HeraldProcess,
} from './herald-process.ts';
import { buildWaitFlow, flowTotals } from './flow-setup.ts';
import { prepareSendAccount, sendTotals } from './send-setup.ts';
import { startSink, type Sink } from './sink.ts';
import { testDatabaseUrl } from '../helpers.ts';

const people = Number(process.env.FAULTS_FLOW_PEOPLE ?? (isFull ? 10_000 : 5_000));
const kills = Number(process.env.FAULTS_KILLS ?? (isFull ? 20 : 5));
/** Seconds from the entry to the wait's end: runs sleep through several kills, even when a restart takes seconds (the
 * suite's files run side by side and share the cores). At 20 s, on a host at twice its usual pace, the entry and one
 * kill outlasted the wait, and no kill found the runs asleep; the suite's wall time is set by its longer files anyway. */
const sleepSeconds = isFull ? 90 : 60;

let ctx: TestContext;
let sink: Sink;
let herald: HeraldProcess;
beforeAll(async () => {
  sink = await startSink();
  const dataDir = faultsDataDir('flow');
  ctx = await faultsContext(dataDir);
  herald = heraldProcess({
    DATABASE_URL: testDatabaseUrl(),
    DATA_DIR: dataDir,
    PORT: '3813',
    SMTP_URL: sink.url,
    SEND_THREADS: '1',
    SEND_BATCH_SIZE: '250',
  });
  await herald.start();
});
afterAll(async () => {
  await herald?.kill();
  await ctx?.close();
  await sink?.stop();
});

describe('faults: SIGKILL while a flow runs', () => {
  it(
    `runs ${people} people through a flow with a wait while the server is killed ${kills} times: each step once per run, each email once`,
    async () => {
      const { owner, accountId, emailId, addresses } = await prepareSendAccount(
        ctx,
        people,
        'flow.faults.example.com',
      );
      const until = new Date(Date.now() + sleepSeconds * 1000);
      const { flowId, steps } = await buildWaitFlow(owner.client, emailId, until);
      const started = performance.now();
      // One statement tags everyone: the tags trigger enters them all into the flow.
      await sql`update people set tags = array_append(tags, 'enter-flow') where account_id = ${accountId}`.execute(
        ctx.services.db,
      );
      const progress = async () => {
        const { rows } = await sql<{
          live: number;
          waiting: number;
          done: number;
          other: number;
          left: number;
          leased: number;
        }>`
        select count(*) filter (where status in ('active', 'waiting'))::int as live, count(*) filter (where status = 'waiting')::int as waiting,
          count(*) filter (where status = 'done')::int as done, count(*) filter (where status not in ('active', 'waiting', 'done'))::int as other,
          (select count(*) from deliveries where account_id = ${accountId} and source_kind = 'flow' and status in ('pending', 'sending'))::int as left,
          (select count(*) from deliveries where account_id = ${accountId} and source_kind = 'flow' and status = 'sending')::int as leased
        from flow_runs where account_id = ${accountId} and flow_id = ${flowId}`.execute(ctx.services.db);
        return rows[0]!;
      };
      // Every live run sleeps in the wait and no email waits to go out.
      const asleep = (now: { live: number; waiting: number; left: number }) =>
        now.live > 0 && now.waiting === now.live && now.left === 0;
      const executed = async () =>
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from flow_run_steps where account_id = ${accountId} and flow_id = ${flowId}`.execute(
            ctx.services.db,
          )
        ).rows[0]!.n;
      // Kills at random moments once the restarted process is at work again: while runs take their first steps, while
      // they all sleep in the wait, and after they wake while their email goes out.
      let landed = 0;
      const phases: string[] = [];
      const asleepKills = Math.ceil(kills / 2);
      const steppingKills = Math.max(1, kills - asleepKills - 1);
      const count = (phase: string) => phases.filter((p) => p === phase).length;
      for (let i = 1; i <= kills; i++) {
        const before = { executed: await executed(), received: sink.counts().received };
        const phase = await waitUntil(
          async () => {
            const now = await progress();
            if (now.live === 0 && now.left === 0 && now.done > 0) return 'finished';
            // Up to half the kills while every run sleeps and no email waits, the last kill always kept for the sending
            // after the wait, and the kills before the wait limited so that both later phases get theirs.
            if (asleep(now)) return i < kills && count('asleep') < asleepKills ? 'asleep' : undefined;
            if (sink.counts().received > before.received) return 'sending';
            if (count('stepping') < steppingKills && (await executed()) > before.executed) return 'stepping';
            return undefined;
          },
          120_000,
          async () => `no progress after kill ${i - 1}: ${JSON.stringify(await progress())}`,
          50,
        );
        if (phase === 'finished') break;
        // Not a wait for work: the kill lands at a random moment of the phase (the scenario).
        await new Promise((r) => setTimeout(r, between(0, phase === 'asleep' ? 1500 : 600)));
        const now = await progress();
        await herald.kill();
        landed++;
        // Where the work stood at the kill: an email received since the restart, or one waiting to go out, makes it
        // sending, even while the runs not yet picked up after their wait still show as waiting.
        const at = phase === 'sending' || now.left > 0 ? 'sending' : asleep(now) ? 'asleep' : 'stepping';
        phases.push(at);
        console.log(
          `  kill ${i} at ${secondsSince(started)} s (${at}): ${JSON.stringify(now)}, ${sink.counts().received} emails received`,
        );
        await herald.start();
      }
      const done = await waitUntil(
        async () => {
          const now = await progress();
          return now.live === 0 && now.left === 0 && now.done + now.other > 0 ? now : undefined;
        },
        240_000,
        async () => JSON.stringify(await progress()),
        500,
      );
      // No run is live and no email left to send: anything still on its way is counted once the sink is idle.
      await sink.idle();
      const check = await flowTotals(ctx.services.db, accountId, flowId, steps);
      const totals = sendTotals(sink, addresses);
      console.log(
        `  runs done at ${secondsSince(started)} s after ${landed} kills (${phases.join(', ')}): ${JSON.stringify(done)}; database ${JSON.stringify(check)}; sink ${JSON.stringify(sink.counts())}`,
      );
      const lost = totals.lost + check.short + (people - check.runs);
      writeFigure(
        'faults',
        30,
        'flow',
        `flow ${people} runs x ${steps} steps, ${landed} kills, ${lost} lost, ${totals.duplicated + check.twice} duplicated, ${totals.lostAtDot} cut at the final dot (${secondsSince(started)} s)`,
      );
      expect(herald.unexpectedExits).toEqual([]);
      expect({ lost: totals.lost, duplicated: totals.duplicated }).toEqual({ lost: 0, duplicated: 0 });
      // As in broadcast-kill.test.ts: a kill between a journal line and its dot may lose that one message.
      expect(totals.lostAtDot).toBeLessThanOrEqual(landed);
      expect(check).toEqual({ runs: people, twice: 0, short: 0, executed: people * steps, tagged: people });
      expect(done).toMatchObject({ done: people, other: 0 });
      expect(landed).toBe(kills);
      expect(phases).toContain('asleep');
      expect(phases).toContain('sending');
    },
    testTimeoutMs,
  );
});
