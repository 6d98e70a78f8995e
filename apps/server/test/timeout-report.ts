import pg from 'pg';
import { afterEach } from 'vitest';
import { testDatabaseUrl } from './helpers.ts';
import { processTrail } from './process-trail.ts';

/**
 * When a test runs past its time, print what its database is doing at that moment: every other session's state, what
 * it waits on and its statement, and the job queue's running and due jobs. A time-out in CI otherwise says only
 * "Test timed out in 30000ms", and the hang it hides is gone by the time anyone looks.
 */
afterEach(async (context) => {
  const errors = context.task.result?.errors ?? [];
  if (!errors.some((e) => /timed out/i.test(String(e?.message)))) return;
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  try {
    await client.connect();
    const sessions = await client.query(
      `select pid, state, wait_event_type, wait_event, backend_type,
              round(extract(epoch from now() - xact_start)::numeric, 1) as xact_s,
              round(extract(epoch from now() - query_start)::numeric, 1) as query_s,
              pg_blocking_pids(pid) as blocked_by, left(regexp_replace(query, '\\s+', ' ', 'g'), 240) as query
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
        order by xact_start nulls last`,
    );
    const present = await client.query<{ present: boolean }>(
      `select to_regclass('graphile_worker.jobs') is not null as present`,
    );
    const jobs = present.rows[0]?.present
      ? await client.query(
          `select id, task_identifier as task, key, queue_name as queue, priority, attempts, max_attempts, locked_at, locked_by,
                  run_at, round(extract(epoch from now() - run_at)::numeric, 1) as due_s, left(last_error, 200) as error,
                  revision, round(extract(epoch from now() - created_at)::numeric, 1) as created_s_ago,
                  round(extract(epoch from now() - updated_at)::numeric, 1) as updated_s_ago
             from graphile_worker.jobs where locked_at is not null or run_at <= now() + interval '5 s'
            order by id limit 20`,
        )
      : { rows: [] };
    const queues = present.rows[0]?.present
      ? await client.query(
          `select queue_name, locked_at, locked_by from graphile_worker._private_job_queues where locked_at is not null`,
        )
      : { rows: [] };
    console.log(
      `[timeout report] ${context.task.name}\n` +
        `sessions: ${JSON.stringify(sessions.rows, null, 1)}\n` +
        `jobs: ${JSON.stringify(jobs.rows, null, 1)}\n` +
        `locked queues: ${JSON.stringify(queues.rows)}\n` +
        `this process: ${JSON.stringify(processTrail(), null, 1)}`,
    );
  } catch (err) {
    console.log(`[timeout report] could not read the database: ${String(err)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
});
