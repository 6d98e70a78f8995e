import { sql, type Kysely } from 'kysely';

/** herald_enqueue_soonest as this migration wrote it (migration 0060's down writes it back). */
export const enqueueSoonestFunction = `function herald_enqueue_soonest(task text, payload json, job_key text, run_at timestamptz, max_attempts int)
    returns void language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      waiting timestamptz;
    begin
      perform pg_advisory_xact_lock(hashtext('herald_enqueue:' || job_key));
      select j.run_at into waiting from graphile_worker._private_jobs j where j.key = job_key and j.locked_at is null;
      perform graphile_worker.add_job(task, payload, job_key => job_key,
        run_at => least(coalesce(run_at, now()), coalesce(waiting, 'infinity')), max_attempts => max_attempts);
    end $fn$`;

/**
 * Quiet hours that change release the mail they held (issue 17).
 *
 * - `deliveries.quiet_due_at`: when a row held by quiet hours was due before they moved it (null for a row they
 *   did not move). Set when a broadcast is queued into quiet hours and when a claim meets a row inside them.
 * - `herald_hold_quiet_delivery` now keeps that time (the first one, should a row be held twice).
 *
 * Turning quiet hours off, or moving their window, puts each held row back at its due time (or now, when that has
 * passed), moved again only by the new window.
 *
 * `herald_enqueue_soonest` adds a keyed job like `herald_enqueue`, but never later than the waiting (unlocked) job
 * of that key: a send job that reschedules itself for its next row cannot push back a run someone asked for now
 * (mail just released). A lock on the key, held to commit, keeps two such calls from crossing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table deliveries add column quiet_due_at timestamptz;

    create or replace function herald_hold_quiet_delivery(account bigint, delivery bigint, opens timestamptz) returns boolean
    language sql volatile as $fn$
      update deliveries set quiet_due_at = coalesce(quiet_due_at, not_before), not_before = opens, status = 'pending', lease_until = null
      where account_id = account and id = (
        select id from deliveries where account_id = account and id = delivery and status in ('pending', 'sending')
        for update skip locked
      );
      select false;
    $fn$;

    create ${sql.raw(enqueueSoonestFunction)};
    revoke all on function herald_enqueue_soonest(text, json, text, timestamptz, int) from public;
    grant execute on function herald_enqueue_soonest(text, json, text, timestamptz, int) to herald_app;
  `.execute(db);
}
