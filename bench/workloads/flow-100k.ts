import type { ChildProcess } from 'node:child_process';
import { encodeInputFields, stepTypeOf, type OperationKey } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../apps/server/src/db/connection.ts';
import { rebuildChunk, runSegmentRefresh } from '../../apps/server/src/features/segments/segments.jobs.ts';
import type { Services } from '../../apps/server/src/services.ts';
import { postgresCpuSeconds, processFigures } from './broadcast-100k.ts';
import { startSink, throughputSink } from './sinks.ts';
import { smtpFloor } from './smtp-floor.ts';
import { buildServer, databaseUrlOf, startHeraldProcess } from './herald-process.ts';
import { round1, startBench, unbounded, vacuumAnalyze } from './lib.ts';
import { newsletter } from './render-10k.ts';

/** FLOW_PEOPLE changes the size (a busy machine); the figure is defined for 100,000. */
export const flowPeople = Number(process.env.FLOW_PEOPLE ?? 100_000);

/**
 * An account of `people` people tagged 'reader' (created once, reused), a verified sender and the 10 kB newsletter.
 * Earlier runs' flows, segments, deliveries and events of the account go, so each run starts from the same tables.
 */
export async function prepareFlowAccount(db: Database, people: number, name = `bench-flow-${people}`) {
  const prepared = await unbounded(db, async (trx) => {
    let account = await trx.selectFrom('accounts').select('id').where('name', '=', name).executeTakeFirst();
    if (!account) {
      account = await trx
        .insertInto('accounts')
        .values({
          name,
          email: `${name}@example.com`,
          writeKey: `${name}-write-key`,
          trialEndsAt: new Date(Date.now() + 365 * 86_400_000),
          mailingAddress: '1 Engine Way, London',
          site: 'https://example.com',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    }
    const accountId = Number(account.id);
    const { rows } = await sql<{
      n: string;
    }>`select count(*) as n from people where account_id = ${accountId}`.execute(trx);
    if (Number(rows[0]!.n) !== people) {
      const started = performance.now();
      await sql`delete from people where account_id = ${accountId}`.execute(trx);
      await sql`insert into people (account_id, email, first_name, last_name, company, tags, fields)
        select ${accountId}, 'flow' || i || '@sink.example.com', 'Reader ' || i, 'Number ' || (i % 977), 'Company ' || (i % 500), '{reader}',
          jsonb_build_object('plan', case when i % 3 = 0 then 'Pro' else 'Starter' end, 'city', 'City ' || (i % 90))
        from generate_series(1, ${people}) as i`.execute(trx);
      console.log(`  created ${people} people in ${round1((performance.now() - started) / 1000)} s`);
    }
    // Every bench-flow account's earlier flows, runs and mail go (of any size: their addresses are the same, and a
    // run killed half way would otherwise go on sending into this run's sink).
    const earlier = sql`(select id from accounts where name like 'bench-flow-%')`;
    await sql`delete from flows where account_id in ${earlier}`.execute(trx);
    await sql`delete from flow_run_steps where account_id in ${earlier}`.execute(trx);
    await sql`delete from segments where account_id = ${accountId} and auto_type is null`.execute(trx);
    const stale = await sql`delete from deliveries where account_id in ${earlier}`.execute(trx);
    if (Number(stale.numAffectedRows ?? 0))
      console.log(`  removed ${Number(stale.numAffectedRows)} deliveries of earlier runs`);
    await sql`delete from events where account_id in ${earlier}`.execute(trx);
    await sql`update people set tags = '{reader}' where account_id = ${accountId} and tags <> '{reader}'`.execute(
      trx,
    );
    // Pending membership marks (people just created or reset) would otherwise be followed during the timed part.
    await sql`delete from segment_dirty_accounts where account_id = ${accountId}`.execute(trx);
    await sql`delete from segment_dirty_people where account_id = ${accountId}`.execute(trx);
    await sql`insert into sender_addresses (account_id, email, status) values (${accountId}, 'flows@sink.example.com', 'verified') on conflict do nothing`.execute(
      trx,
    );
    const email = newsletter();
    const row = await trx
      .insertInto('emails')
      .values({
        accountId,
        name: 'Bench flow email',
        subject: email.subject,
        preheader: email.preheader,
        html: email.html,
        fromName: 'Bench',
        fromEmail: 'flows@sink.example.com',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { accountId, emailId: Number(row.id) };
  });
  // Every table a run fills or churns: with autovacuum off (this machine's PostgreSQL) their dead rows piled up run after
  // run (2.4 million in segment_members after some twenty runs) and each run was slower than the one before.
  await vacuumAnalyze(db, [
    'people',
    'deliveries',
    'events',
    'flow_runs',
    'flow_run_steps',
    'email_metric_queue',
    'segment_members',
    'segment_dirty_people',
    'email_metric_firsts',
  ]);
  return prepared;
}

export interface BenchStep {
  name: string;
  op: OperationKey;
  config?: Record<string, unknown>;
}

/** A flow stored as the flows API stores one, switched on; returns its id and its steps' ids by name. */
export async function createActiveFlow(
  db: Database,
  accountId: number,
  steps: BenchStep[],
  links: [string, string, string?][],
) {
  const flow = await db
    .insertInto('flows')
    .values({ accountId, name: 'Bench flow' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const flowId = Number(flow.id);
  const ids: Record<string, number> = {};
  for (const step of steps) {
    const row = await db
      .insertInto('flowSteps')
      .values({
        accountId,
        flowId,
        type: stepTypeOf(step.op),
        operationKey: step.op,
        inputFields: JSON.stringify(encodeInputFields(step.config ?? {})),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids[step.name] = Number(row.id);
  }
  for (const [source, target, condition] of links)
    await db
      .insertInto('flowLinks')
      .values({ accountId, flowId, source: ids[source]!, target: ids[target]!, condition: condition ?? null })
      .execute();
  await db
    .updateTable('flows')
    .set({ status: 'active', activatedAt: new Date() })
    .where('accountId', '=', accountId)
    .where('id', '=', flowId)
    .execute();
  return { flowId, ids };
}

/**
 * A segment of everyone tagged 'reader', stored as built while nobody matched it yet, and the bench's five-step flow
 * on entering it: filter (has tag reader) → add tag → wait 0 → send the newsletter. Returns what `enter` needs.
 */
export async function prepareFlow100k(db: Database, accountId: number, emailId: number) {
  const segment = await db
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
  const segmentId = Number(segment.id);
  const flow = await createActiveFlow(
    db,
    accountId,
    [
      { name: 'trigger', op: '/entered-segment', config: { segment: { id: segmentId } } },
      { name: 'filter', op: '/has-tag', config: { tag: 'reader' } },
      { name: 'tag', op: '/add-tag', config: { tag: 'flow-bench' } },
      { name: 'wait', op: '/delay-v2', config: { wait: { mode: 'duration', amount: 0, unit: 'minutes' } } },
      { name: 'send', op: '/send', config: { email: { id: emailId } } },
    ],
    [
      ['trigger', 'filter'],
      ['filter', 'tag', 'yes'],
      ['tag', 'wait'],
      ['wait', 'send'],
    ],
  );
  return { segmentId, ...flow };
}

/** Runs of the flow still to finish, and finished ones. */
export async function runProgress(db: Database, accountId: number, flowId: number) {
  const { rows } = await sql<{ live: number; done: number; failed: number }>`
    select count(*) filter (where status in ('active', 'waiting'))::int as live, count(*) filter (where status = 'done')::int as done,
      count(*) filter (where status in ('failed', 'exited'))::int as failed
    from flow_runs where account_id = ${accountId} and flow_id = ${flowId}`.execute(db);
  return rows[0]!;
}

/**
 * Runs of the flow not yet finished, counted on the partial index of live runs (a count of the flow's 100,000 runs
 * took 45 ms). Counted every fifth poll, for the progress line; the polls between only ask whether one is left (the
 * first entry of the index), so the harness takes about 0.15 s of PostgreSQL's time in a run instead of 1.1 s.
 * Answers null when some are left but they were not counted.
 */
export async function liveRuns(
  db: Database,
  accountId: number,
  flowId: number,
  count: boolean,
): Promise<number | null> {
  if (!count) {
    const { rows } = await sql<{ left: boolean }>`
      select exists (select 1 from flow_runs where account_id = ${accountId} and flow_id = ${flowId} and status in ('active', 'waiting')) as left`.execute(
      db,
    );
    return rows[0]!.left ? null : 0;
  }
  const { rows } = await sql<{ live: number }>`
    select count(*)::int as live from flow_runs where account_id = ${accountId} and flow_id = ${flowId} and status in ('active', 'waiting')`.execute(
    db,
  );
  return rows[0]!.live;
}

/** What the database says after a run: steps executed more than once, runs without all five steps, deliveries. */
export async function verifyFlowRun(db: Database, accountId: number, flowId: number, steps: number) {
  return unbounded(db, async (trx) => {
    const { rows } = await sql<{
      twice: number;
      runs: number;
      short: number;
      executed: number;
      deliveries: number;
      sent: number;
    }>`
      select
        (select count(*) from (select run_id, step_id from flow_run_steps where account_id = ${accountId} and flow_id = ${flowId} group by 1, 2 having count(*) > 1) d)::int as twice,
        (select count(*) from flow_runs where account_id = ${accountId} and flow_id = ${flowId})::int as runs,
        (select count(*) from (select r.id from flow_runs r left join flow_run_steps s on s.account_id = r.account_id and s.run_id = r.id
           where r.account_id = ${accountId} and r.flow_id = ${flowId} group by r.id having count(s.seq) <> ${steps}) d)::int as short,
        (select count(*) from flow_run_steps where account_id = ${accountId} and flow_id = ${flowId})::int as executed,
        (select count(*) from deliveries where account_id = ${accountId} and source_kind = 'flow')::int as deliveries,
        (select count(*) from deliveries where account_id = ${accountId} and source_kind = 'flow' and status = 'sent')::int as sent`.execute(
      trx,
    );
    return rows[0]!;
  });
}

/**
 * Enter everyone into the segment: the rebuild writes the members and their 'entered' events in parts of
 * `rebuildChunk` people, each committed (their trigger starts the runs), so the flow starts on the first part.
 */
export async function enterSegment(services: Services, accountId: number, segmentId: number) {
  const started = performance.now();
  await runSegmentRefresh(services, accountId, segmentId);
  console.log(
    `  segment entered (members, events and runs, in parts of ${rebuildChunk}) in ${round1((performance.now() - started) / 1000)} s`,
  );
}

/** The built Herald process (API and worker, as `npm start` runs it) on the bench's database, sending into the sink. */
export async function startHerald(main: string, databaseUrl: string, sinkUrl: string): Promise<ChildProcess> {
  const herald = await startHeraldProcess({
    main,
    databaseUrl,
    port: 3967,
    secret: 'bench-flow-secret-bench-flow-secret-bench-flow-01',
    env: { SMTP_URL: sinkUrl, SMTP_MAX_CONNECTIONS: process.env.SMTP_MAX_CONNECTIONS ?? '32' },
  });
  return herald.child;
}

/**
 * `flow-100k`: 100,000 people enter a five-step flow (entered segment → filter → add tag → wait 0 → send the 10 kB
 * newsletter) by a rebuild of the segment, and the built Herald process runs it into the SMTP sink. Figure: seconds from the
 * entry until every run is done and every email has arrived; checked from the sink (100,000 distinct, no
 * duplicate) and from the database (no step executed twice, five steps per run).
 */
export async function flow100k(): Promise<{ figure: number; unit: string; floor: number }> {
  const figure = await flow100kHerald();
  return { figure, unit: 's', floor: await smtpFloor(throughputSink, flowPeople) };
}

async function flow100kHerald(): Promise<number> {
  const sink = await startSink(throughputSink);
  const main = buildServer();
  const bench = await startBench('api');
  const herald = await startHerald(main, databaseUrlOf(bench), sink.url);
  try {
    const { accountId, emailId } = await prepareFlowAccount(bench.db, flowPeople);
    const { segmentId, flowId } = await prepareFlow100k(bench.db, accountId, emailId);
    const atStart = processFigures(herald.pid!);
    const postgresAtStart = postgresCpuSeconds();
    let cpuAtDone = '';
    const started = performance.now();
    await enterSegment(bench.server.services, accountId, segmentId);
    let doneAt = 0;
    let stats = await sink.stats();
    for (let poll = 0; ; poll++) {
      await new Promise((r) => setTimeout(r, 1000));
      const live = doneAt ? 0 : await liveRuns(bench.db, accountId, flowId, poll % 5 === 0);
      stats = await sink.stats();
      const elapsed = (performance.now() - started) / 1000;
      if (live === 0 && !doneAt) {
        doneAt = elapsed;
        cpuAtDone = `; when the runs were done, Herald ${round1(processFigures(herald.pid!).cpuSeconds - atStart.cpuSeconds)} s, PostgreSQL ${round1(postgresCpuSeconds() - postgresAtStart)} s`;
      }
      console.log(
        `  ${live ?? 'some'} runs in progress; ${stats.received} emails received (${round1(elapsed)} s)`,
      );
      if (live === 0 && stats.received >= flowPeople) break;
      if (elapsed > 600) throw new Error('not done in 10 minutes');
    }
    const startedAt = Date.now() - (performance.now() - started);
    const lastMail = (stats.lastAt - startedAt) / 1000;
    const firstMail = (stats.firstAt - startedAt) / 1000;
    const seconds = Math.max(doneAt, lastMail);
    const cpu = processFigures(herald.pid!).cpuSeconds - atStart.cpuSeconds;
    await new Promise((r) => setTimeout(r, 1500));
    stats = await sink.stats();
    const check = await verifyFlowRun(bench.db, accountId, flowId, 5);
    const final = await runProgress(bench.db, accountId, flowId);
    console.log(
      `  runs done at ${round1(doneAt)} s, first email at ${round1(firstMail)} s, last at ${round1(lastMail)} s; Herald CPU ${round1(cpu)} s, PostgreSQL ${round1(postgresCpuSeconds() - postgresAtStart)} s${cpuAtDone}`,
    );
    console.log(
      `  sink: ${stats.received} received, ${stats.distinct} distinct, ${stats.duplicates} duplicates`,
    );
    console.log(
      `  database: ${check.runs} runs (${final.done} done, ${final.failed} failed), ${check.executed} steps executed, ${check.twice} executed twice, ${check.short} runs without all 5 steps, ${check.deliveries} deliveries (${check.sent} sent)`,
    );
    if (
      final.failed ||
      check.twice ||
      check.short ||
      stats.duplicates ||
      stats.distinct !== flowPeople ||
      check.runs !== flowPeople
    )
      throw new Error('flow-100k: the totals are wrong');
    return round1(seconds);
  } finally {
    herald.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await bench.stop();
    sink.stop();
  }
}
