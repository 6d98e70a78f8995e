import { sql, type Kysely } from 'kysely';
import { enqueueFunction } from './0002-team-and-tenancy.ts';
import { enqueueSoonestFunction } from './0024-quiet-hours-release.ts';
import { enqueueCoalescedFunction } from './0055-membership-jobs-yield.ts';

/**
 * The body of a function that calls add_job (`call`) until it returns a job, at most three times; each try's
 * statements see what committed before it, so the second finds the worker's lock. With `soonest`, the key's lock is
 * taken first and each try reads the key's waiting job again (`waiting`, which `call` uses).
 */
const untilAdded = (call: string, soonest = false) =>
  sql.raw(`
    declare
      added record;
      waiting timestamptz;
    begin
      ${soonest ? "perform pg_advisory_xact_lock(hashtext('herald_enqueue:' || job_key));" : ''}
      for try in 1..3 loop
        ${soonest ? 'select j.run_at into waiting from graphile_worker._private_jobs j where j.key = job_key and j.locked_at is null;' : ''}
        added := ${call};
        if added.id is not null then
          return;
        end if;
      end loop;
      raise exception 'The job % (%) could not be queued: its waiting job was taken three times over.', task, job_key;
    end`);

/**
 * A keyed job asked for while a worker is taking it is no longer dropped (docs/operations.md, "Jobs asked for while
 * a worker takes them").
 *
 * graphile-worker's add_job updates the waiting job of a key only while that job is unlocked, and makes a new job
 * only when the job of the key is already locked. A worker's lock that is written but not yet committed hides from
 * both checks: the request finds the job unlocked, waits for the worker's row, then finds it locked and updates
 * nothing, and add_job returns no job. The worker then ran with the world as it was before the change and nothing
 * ran after it: an outgoing-webhooks job that had just looked for due deliveries slept until its next retry (30 s
 * later) while a new person's webhook waited.
 *
 * Herald's three ways of adding a job (herald_enqueue, herald_enqueue_soonest, herald_enqueue_coalesced) now ask
 * again when add_job returns no job: by then the worker's lock is committed, so add_job takes the key from the job in
 * progress and makes a new one. herald_enqueue_soonest reads the waiting job again for each try. Three tries that all
 * come back empty (three workers taking the key's job in turn within one call) raise an error rather than lose the
 * request. Test: job-enqueue-race.test.ts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function herald_enqueue(task text, payload json, job_key text, run_at timestamptz, max_attempts int)
    returns void language plpgsql security definer set search_path = pg_catalog, public as $fn$
    ${untilAdded('graphile_worker.add_job(task, payload, job_key => job_key, run_at => run_at, max_attempts => max_attempts)')}
    $fn$;

    create or replace function herald_enqueue_soonest(task text, payload json, job_key text, run_at timestamptz, max_attempts int)
    returns void language plpgsql security definer set search_path = pg_catalog, public as $fn$
    ${untilAdded(
      `graphile_worker.add_job(task, payload, job_key => job_key,
          run_at => least(coalesce(run_at, now()), coalesce(waiting, 'infinity')), max_attempts => max_attempts)`,
      true,
    )}
    $fn$;

    create or replace function herald_enqueue_coalesced(task text, payload json, job_key text, run_at timestamptz default null)
    returns void language plpgsql security definer set search_path = pg_catalog, public as $fn$
    ${untilAdded(
      `graphile_worker.add_job(task, payload, run_at => run_at, job_key => job_key,
          job_key_mode => 'preserve_run_at', priority => 1)`,
    )}
    $fn$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace ${sql.raw(enqueueFunction)};
    create or replace ${sql.raw(enqueueSoonestFunction)};
    create or replace ${sql.raw(enqueueCoalescedFunction)};
  `.execute(db);
}
