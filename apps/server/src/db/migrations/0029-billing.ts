import type { Kysely } from 'kysely';

/** Plans, trial and limits (issue 21): the account's plan and its people limit. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
