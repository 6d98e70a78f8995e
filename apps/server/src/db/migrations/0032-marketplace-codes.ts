import type { Kysely } from 'kysely';

/** Marketplace registration (issue 21): the redeemable codes an operator loads. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
