import { sql, type Kysely } from 'kysely';

/**
 * Duplicate emails in an import file are now removed from staging in one pass before the merge (a hash
 * aggregate over the staged rows), so the per-email index on the staging table has no reader left;
 * without it, staging a million rows writes one index instead of two.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists import_rows_email_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index import_rows_email_idx on import_rows (account_id, import_id, email_lower, row_no)`.execute(
    db,
  );
}
