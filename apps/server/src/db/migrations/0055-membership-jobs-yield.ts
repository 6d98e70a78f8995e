import { sql, type Kysely } from 'kysely';

/** herald_enqueue_coalesced as this migration wrote it (migration 0060's down writes it back). */
export const enqueueCoalescedFunction = `function herald_enqueue_coalesced(task text, payload json, job_key text, run_at timestamptz default null)
    returns void language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      perform graphile_worker.add_job(task, payload, run_at => run_at, job_key => job_key,
        job_key_mode => 'preserve_run_at', priority => 1);
    end $fn$`;

/**
 * Membership jobs yield to the rest (issue 56, docs/segments.md, "How soon membership follows a change").
 *
 * `herald_enqueue_coalesced` queues the two membership jobs (`refresh-segments`, `refresh-segment`). They now go in
 * at priority 1, after every waiting send, flow step and import (priority 0): the job queue takes the lowest priority
 * first, then the oldest. Before, a poller's look that found many accounts with marks put a refresh for each ahead
 * of a send queued a moment later, and the send waited for all of them. The function also takes an optional time
 * to run at, so a refresh that had to leave people for a segment being rebuilt can queue its next round for later
 * instead of having the next look queue it at once (`runDirtyRefresh`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function herald_enqueue_coalesced(text, json, text);
    create ${sql.raw(enqueueCoalescedFunction)};
    revoke all on function herald_enqueue_coalesced(text, json, text, timestamptz) from public;
    grant execute on function herald_enqueue_coalesced(text, json, text, timestamptz) to herald_app;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function herald_enqueue_coalesced(text, json, text, timestamptz);
    create function herald_enqueue_coalesced(task text, payload json, job_key text)
    returns void language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      perform graphile_worker.add_job(task, payload, job_key => job_key, job_key_mode => 'preserve_run_at');
    end $fn$;
    revoke all on function herald_enqueue_coalesced(text, json, text) from public;
    grant execute on function herald_enqueue_coalesced(text, json, text) to herald_app;
  `.execute(db);
}
