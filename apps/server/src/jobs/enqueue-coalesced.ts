import { sql } from 'kysely';
import type { Database } from '../db/connection.ts';
import type { JobName, JobPayloads } from './job-types.ts';

/**
 * Add a job to a named queue in the caller's transaction: jobs of one queue run one at a time. With a
 * job key, a job still waiting keeps its place and takes the newest payload.
 */
export async function enqueueInQueue<N extends JobName>(db: Database, name: N, payload: JobPayloads[N], queueName: string, jobKey: string): Promise<void> {
  await sql`select herald_enqueue_in_queue(${name}::text, ${JSON.stringify(payload)}::json, ${jobKey}::text, ${queueName}::text)`.execute(db);
}
