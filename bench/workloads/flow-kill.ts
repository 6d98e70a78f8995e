import { sql } from 'kysely';
import {
  enterSegment,
  flowPeople,
  prepareFlow100k,
  prepareFlowAccount,
  runProgress,
  verifyFlowRun,
} from './flow-100k.ts';
import { startKillHarness } from './kill-harness.ts';
import { round1 } from './lib.ts';

const kills = 5;

/**
 * `flow-kill`: the flow-100k run with its worker in a process of its own, killed with SIGKILL five times at random
 * moments (alternately while runs are advanced and while their emails go out; each once the restarted worker has
 * made progress) and started again. Figure: wrong outcomes — emails received twice, people who got none, and steps the
 * database recorded twice for a run.
 */
export async function flowKill(): Promise<{ figure: number; unit: string }> {
  const harness = await startKillHarness(
    process.env.PORT ?? '3968',
    'bench-flow-kill-secret-bench-flow-kill-secret-01',
  );
  const { sink, server } = harness;
  const db = server.services.db;
  try {
    const { accountId, emailId } = await prepareFlowAccount(db, flowPeople);
    const { segmentId, flowId } = await prepareFlow100k(db, accountId, emailId);
    harness.startWorker();
    const started = performance.now();
    await enterSegment(server.services, accountId, segmentId);
    // Odd kills land while runs are advanced (once the restarted worker has finished a batch), even ones while mail
    // goes out (once it has sent again); when every run is done, all land while sending.
    let runsBefore = 0;
    let mailBefore = 0;
    for (let i = 1; i <= kills; i++) {
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 2500));
      for (;;) {
        const progress = await runProgress(db, accountId, flowId);
        const { received } = await sink.stats();
        const whileSending = i % 2 === 0 || progress.live === 0;
        if (
          whileSending ? received > mailBefore + Math.max(100, flowPeople / 100) : progress.done > runsBefore
        )
          break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const runs = await runProgress(db, accountId, flowId);
      const { received } = await sink.stats();
      runsBefore = runs.done;
      mailBefore = received;
      console.log(
        `  kill ${i} at ${round1((performance.now() - started) / 1000)} s (${runs.done} runs done, ${received} emails received); restarting`,
      );
      await harness.restartWorker();
    }
    for (;;) {
      await new Promise((r) => setTimeout(r, 2000));
      const runs = await runProgress(db, accountId, flowId);
      const { rows } = await sql<{ left: number }>`
        select count(*)::int as left from deliveries where account_id = ${accountId} and source_kind = 'flow' and status in ('pending', 'sending')`.execute(
        db,
      );
      const stats = await sink.stats();
      console.log(
        `  ${runs.done} runs done, ${runs.live} in progress; ${stats.received} emails received, ${rows[0]!.left} deliveries left (${round1((performance.now() - started) / 1000)} s)`,
      );
      if (runs.live === 0 && rows[0]!.left === 0) break;
      if (performance.now() - started > 900_000) throw new Error('not done in 15 minutes');
    }
    await new Promise((r) => setTimeout(r, 1000));
    const stats = await sink.stats();
    const check = await verifyFlowRun(db, accountId, flowId, 5);
    const missing = flowPeople - stats.distinct;
    console.log(
      `  sink: ${stats.received} received for ${stats.distinct} people: ${stats.duplicates} duplicates, ${missing} missing`,
    );
    console.log(
      `  database: ${check.runs} runs, ${check.executed} steps executed, ${check.twice} executed twice, ${check.short} runs without all 5 steps, ${check.deliveries} deliveries (${check.sent} sent)`,
    );
    return { figure: stats.duplicates + missing + check.twice, unit: 'wrong' };
  } finally {
    await harness.stop();
  }
}
