import { sql, type Kysely } from 'kysely';

/** Bounce and complaint reports name the Message-ID of the mail they concern: system mail and test sends are found by it. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index mail_deliveries_message_idx on mail_deliveries (message_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index mail_deliveries_message_idx`.execute(db);
}
