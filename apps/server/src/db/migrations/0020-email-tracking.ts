import type { Kysely } from 'kysely';

/**
 * Email tracking: opens and clicks (issue 18). Hits are `email` events (opened / clicked) in the `events` table,
 * written by COPY from the hit buffer (features/tracking/hit-buffer.ts), and found by the indexes that table
 * already has (the person's timeline, the feed, and 0017's partial index for a broadcast's engagement). The
 * signed tokens carry everything a hit records, so no table of tracked links is needed: nothing to create.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
