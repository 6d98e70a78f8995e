import { sql } from 'kysely';
import { runSegmentRefresh } from '../../apps/server/src/features/segments/segments.jobs.ts';
import { startSink } from './sinks.ts';
import { buildServer, databaseUrlOf } from './herald-process.ts';
import { createActiveFlow, prepareFlowAccount, runProgress, startHerald } from './flow-100k.ts';
import { percentile, round1, startBench } from './lib.ts';

const people = Number(process.env.FLOW_TIMER_PEOPLE ?? 10_000);

/**
 * `flow-timer-lag`: 10,000 people enter a flow whose wait ends at the same moment for all of them (about a minute
 * ahead), then a tag step. The built Herald process runs it. Figure: the 95th percentile of (executed − due) over
 * the runs, where executed is when the batch that took the run past its wait started (flow_run_steps) and due is
 * the run's wake time.
 */
export async function flowTimerLag(): Promise<{ figure: number; unit: string }> {
  const sink = await startSink();
  const main = buildServer();
  const bench = await startBench('api');
  const herald = await startHerald(main, databaseUrlOf(bench), sink.url);
  try {
    const { accountId } = await prepareFlowAccount(bench.db, people);
    const segment = await bench.db
      .insertInto('segments')
      .values({
        accountId,
        name: 'Bench readers',
        conditions: JSON.stringify([{ type: 'tag', operator: 'has', tag: 'reader' }]),
        memberCount: 0,
        refreshedAt: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const due = new Date(Math.ceil((Date.now() + 45_000) / 1000) * 1000);
    const { flowId, ids } = await createActiveFlow(
      bench.db,
      accountId,
      [
        { name: 'trigger', op: '/entered-segment', config: { segment: { id: Number(segment.id) } } },
        { name: 'wait', op: '/delay-v2', config: { wait: { mode: 'until', at: due.toISOString() } } },
        { name: 'tag', op: '/add-tag', config: { tag: 'woke' } },
      ],
      [
        ['trigger', 'wait'],
        ['wait', 'tag'],
      ],
    );
    await runSegmentRefresh(bench.server.services, accountId, Number(segment.id));
    for (;;) {
      const { rows } = await sql<{
        waiting: number;
      }>`select count(*)::int as waiting from flow_runs where account_id = ${accountId} and flow_id = ${flowId} and status = 'waiting'`.execute(
        bench.db,
      );
      console.log(
        `  ${rows[0]!.waiting} runs waiting for ${due.toISOString()} (in ${round1((due.getTime() - Date.now()) / 1000)} s)`,
      );
      if (rows[0]!.waiting === people) break;
      if (Date.now() > due.getTime())
        throw new Error(
          'the runs were not all waiting before their wake time: start further ahead on this machine',
        );
      await new Promise((r) => setTimeout(r, 2000));
    }
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      const progress = await runProgress(bench.db, accountId, flowId);
      console.log(
        `  ${progress.done} runs done, ${progress.live} waiting or due (${round1((Date.now() - due.getTime()) / 1000)} s after the wake time)`,
      );
      if (progress.live === 0) break;
      if (Date.now() - due.getTime() > 300_000) throw new Error('not done 5 minutes after the wake time');
    }
    const { rows } = await sql<{ lag: number }>`
      select extract(epoch from (s.executed_at - ${due}::timestamptz))::float8 as lag from flow_run_steps s
      where s.account_id = ${accountId} and s.flow_id = ${flowId} and s.step_id = ${ids.tag!}`.execute(
      bench.db,
    );
    const lags = rows.map((r) => r.lag).sort((a, b) => a - b);
    if (lags.length !== people) throw new Error(`${lags.length} runs passed the wait, expected ${people}`);
    console.log(
      `  lag after the wake time: min ${round1(lags[0]!)} s, median ${round1(percentile(lags, 50))} s, p95 ${round1(percentile(lags, 95))} s, max ${round1(lags[lags.length - 1]!)} s`,
    );
    return { figure: round1(percentile(lags, 95)), unit: 's' };
  } finally {
    herald.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await bench.stop();
    sink.stop();
  }
}
