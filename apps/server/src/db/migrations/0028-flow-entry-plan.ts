import { sql, type Kysely } from 'kysely';

/**
 * herald_flow_enter looks up each person's last run of the flow (the re-entry rule). Right after flow_runs was
 * vacuumed empty its statistics say it has no pages, and the planner read the table sequentially for every person
 * entering, while the same statement kept adding runs to it: a segment entry of 100,000 people ran for minutes
 * instead of seconds. Every lookup it makes has an index, so it plans without sequential scans.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter function herald_flow_enter(jsonb) set enable_seqscan = off`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter function herald_flow_enter(jsonb) reset enable_seqscan`.execute(db);
}
