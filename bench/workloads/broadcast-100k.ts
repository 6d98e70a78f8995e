import fs from 'node:fs';
import { sql } from 'kysely';
import { withAccount } from '../../apps/server/src/db/tenancy.ts';
import { defaultCategory } from '../../apps/server/src/features/categories/categories.service.ts';
import { enqueueDeliveries } from '../../apps/server/src/features/deliveries/deliveries.service.ts';
import type { Database } from '../../apps/server/src/db/connection.ts';
import { buildServer, databaseUrlOf, startHeraldProcess } from './herald-process.ts';
import { round1, startBench, unbounded, vacuumAnalyze } from './lib.ts';
import { newsletter } from './render-10k.ts';
import { startSink, throughputSink } from './sinks.ts';
import { smtpFloor } from './smtp-floor.ts';

/** BROADCAST_PEOPLE changes the size for profiling; the figure is defined for 100,000. */
const people = Number(process.env.BROADCAST_PEOPLE ?? 100_000);
const accountName = `bench-broadcast-${people}`;

/**
 * An account with 100,000 people carrying five personalised fields, a verified sender and the 10 kB newsletter
 * (created once, reused). Returns the account, the email and a fresh broadcast to send.
 */
export async function prepareBroadcast(db: Database) {
  const prepared = await unbounded(db, async (trx) => {
    let account = await trx
      .selectFrom('accounts')
      .select('id')
      .where('name', '=', accountName)
      .executeTakeFirst();
    if (!account) {
      account = await trx
        .insertInto('accounts')
        .values({
          name: accountName,
          email: `${accountName}@example.com`,
          writeKey: `${accountName}-write-key`,
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
      await sql`insert into people (account_id, email, first_name, last_name, company, fields)
        select ${accountId}, 'reader' || i || '@sink.example.com', 'Reader ' || i, 'Number ' || (i % 977), 'Company ' || (i % 500),
          jsonb_build_object('plan', case when i % 3 = 0 then 'Pro' else 'Starter' end, 'city', 'City ' || (i % 90))
        from generate_series(1, ${people}) as i`.execute(trx);
      console.log(`  created ${people} people in ${round1((performance.now() - started) / 1000)} s`);
    }
    // Earlier runs' deliveries and sent events go (each run starts from the same tables), and sends a killed or
    // interrupted run left behind would otherwise go to this run's sink.
    const stale =
      await sql`delete from deliveries d using accounts a where a.id = d.account_id and a.name like 'bench-broadcast-%'`.execute(
        trx,
      );
    await sql`delete from events e using accounts a where a.id = e.account_id and a.name like 'bench-broadcast-%'`.execute(
      trx,
    );
    if (Number(stale.numAffectedRows ?? 0))
      console.log(`  removed ${Number(stale.numAffectedRows)} deliveries of earlier runs`);
    await sql`insert into sender_addresses (account_id, email, status) values (${accountId}, 'news@sink.example.com', 'verified') on conflict do nothing`.execute(
      trx,
    );
    const email = newsletter();
    const row = await trx
      .insertInto('emails')
      .values({
        accountId,
        name: 'Bench newsletter',
        subject: email.subject,
        preheader: email.preheader,
        html: email.html,
        fromName: 'Bench',
        fromEmail: 'news@sink.example.com',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const broadcast = await trx
      .insertInto('broadcasts')
      .values({
        accountId,
        name: 'Bench broadcast',
        status: 'sending',
        emailId: row.id,
        startedAt: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { accountId, emailId: Number(row.id), broadcastId: Number(broadcast.id) };
  });
  // The metric queue is written and emptied once per message: with autovacuum off (as on the CI machine) its dead rows
  // would pile up run after run and slow the rollups that read it.
  await vacuumAnalyze(db, [
    'deliveries',
    'events',
    'email_metric_queue',
    'segment_dirty_people',
    'email_metric_firsts',
  ]);
  return prepared;
}

/** Resident memory now and at its peak (VmRSS, VmHWM) and CPU seconds so far of a process, from /proc. */
export function processFigures(pid: number): { rss: number; peak: number; cpuSeconds: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) * 1024;
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100 };
}

/**
 * CPU seconds so far of every PostgreSQL process on this machine (0 when the database runs elsewhere): the live
 * ones' own, plus what the postmaster's ended children (connections closed since) spent.
 */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
    } catch {
      // the process ended while being read
    }
  }
  return total;
}

/**
 * `broadcast-100k`: one broadcast of a 10 kB email with five merge tags to 100,000 people, through the real
 * pipeline (queue, leased batches, rendering, pooled SMTP) into a local SMTP sink. Herald runs as `npm start`
 * runs it: the built server (API and worker) in a process of its own; this process prepares the data and queues
 * the send. Figure: seconds from queueing to the last message accepted; the line before gives the peak memory
 * (resident set) of the Herald process. The floor (`smtpFloor`) hands as many pre-rendered messages to the same kind
 * of sink after Herald has stopped.
 */
export async function broadcast100k(): Promise<{ figure: number; unit: string; floor: number }> {
  const figure = await broadcast100kHerald();
  return { figure, unit: 's', floor: await smtpFloor(throughputSink, people) };
}

async function broadcast100kHerald(): Promise<number> {
  const sink = await startSink(throughputSink);
  const main = buildServer();
  const bench = await startBench('api');
  const herald = await startHeraldProcess({
    main,
    databaseUrl: databaseUrlOf(bench),
    port: 3952,
    secret: 'bench-broadcast-secret-bench-broadcast-secret-01',
    env: { SMTP_URL: sink.url, SMTP_MAX_CONNECTIONS: process.env.SMTP_MAX_CONNECTIONS ?? '32' },
  }).catch(async (error: unknown) => {
    await bench.stop();
    sink.stop();
    throw error;
  });
  try {
    const { accountId, emailId, broadcastId } = await prepareBroadcast(bench.db);
    const started = performance.now();
    const atStart = processFigures(herald.pid);
    const sinkAtStart = processFigures(sink.child.pid!).cpuSeconds;
    const postgresAtStart = postgresCpuSeconds();
    console.log(`  Herald process (pid ${herald.pid}) ready: rss ${Math.round(atStart.rss / 1e6)} MB`);
    const queued = await withAccount(bench.db, accountId, async (db) => {
      const category = (await defaultCategory(db, accountId))!;
      return enqueueDeliveries(db, {
        accountId,
        kind: 'broadcast',
        sourceId: broadcastId,
        emailId,
        category: { id: Number(category.id), type: 'marketing' },
        audience: sql`true`,
      });
    });
    console.log(
      `  queued ${queued.queued} (excluded ${queued.excluded}) in ${round1((performance.now() - started) / 1000)} s`,
    );
    let stats = await sink.stats();
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      stats = await sink.stats();
      const now = processFigures(herald.pid);
      console.log(
        `  ${stats.received} received (${round1((performance.now() - started) / 1000)} s, rss ${Math.round(now.rss / 1e6)} MB, peak ${Math.round(now.peak / 1e6)} MB)`,
      );
      if (stats.received >= people) break;
      if (performance.now() - started > 600_000) throw new Error('not done in 10 minutes');
    }
    const startedAt = Date.now() - (performance.now() - started);
    const seconds = (stats.lastAt - startedAt) / 1000;
    // From queueing (the send's start) to the first message the sink took whole.
    console.log(`  first message after ${round1((stats.firstAt - startedAt) / 1000)} s`);
    const end = processFigures(herald.pid);
    const sinkCpu = processFigures(sink.child.pid!).cpuSeconds - sinkAtStart;
    const postgresCpu = postgresCpuSeconds() - postgresAtStart;
    await new Promise((r) => setTimeout(r, 1500));
    stats = await sink.stats();
    const status = await bench.db
      .selectFrom('broadcasts')
      .select('status')
      .where('id', '=', broadcastId)
      .executeTakeFirst();
    console.log(
      `  ${stats.received} received, ${stats.distinct} distinct, ${stats.duplicates} duplicates; broadcast ${status?.status}`,
    );
    // CPU of the Herald process (main thread and sender threads): the figure that does not depend on what else runs.
    const cpu = end.cpuSeconds - atStart.cpuSeconds;
    console.log(`  Herald CPU: ${round1(cpu)} s (${((cpu * 1000) / people).toFixed(3)} ms per message)`);
    // Where the rest of the two cores went: the sink stands for the mail server, PostgreSQL for the queue's writes.
    console.log(
      `  sink CPU: ${round1(sinkCpu)} s; PostgreSQL CPU: ${round1(postgresCpu)} s (${((postgresCpu * 1000) / people).toFixed(3)} ms per message)`,
    );
    console.log(`peak memory: ${Math.round(end.peak / 1e6)} MB`);
    return round1(seconds);
  } finally {
    await herald.stop();
    await bench.stop();
    sink.stop();
  }
}
