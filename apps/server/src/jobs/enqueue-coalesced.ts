import { sql } from 'kysely';
import type { Database } from '../db/connection.ts';
import type { JobName, JobPayloads } from './job-types.ts';

/**
 * Add a job in the caller's transaction, coalesced by its key: while a job with that key still waits,
 * it keeps its place and takes the newest payload, so a burst of requests runs the work once. Such jobs run after
 * every other waiting job (priority 1, migration 0055); `runAt` holds a new one back until then.
 */
export async function enqueueCoalesced<N extends JobName>(
  db: Database,
  name: N,
  payload: JobPayloads[N],
  jobKey: string,
  runAt: Date | null = null,
): Promise<void> {
  await sql`select herald_enqueue_coalesced(${name}::text, ${JSON.stringify(payload)}::json, ${jobKey}::text, ${runAt}::timestamptz)`.execute(
    db,
  );
}
