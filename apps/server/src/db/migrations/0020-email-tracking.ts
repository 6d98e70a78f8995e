import type { Kysely } from 'kysely';

/** Email tracking: opens and clicks (issue 18). */
export async function up(_db: Kysely<unknown>): Promise<void> {}
