import type { Kysely } from 'kysely';

/** Email metrics: rollups of email events (issue 18). */
export async function up(_db: Kysely<unknown>): Promise<void> {}
