import type { Kysely } from 'kysely';

/** Billing providers (issue 21): provider customers, subscriptions, and webhook events kept once each. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
