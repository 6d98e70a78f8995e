import type { Kysely } from 'kysely';

/** Site tracking: visitors, page views and forms (issue 18). */
export async function up(_db: Kysely<unknown>): Promise<void> {}
