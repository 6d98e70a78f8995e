import { sql, type Kysely } from 'kysely';

/**
 * The import staging table is unlogged: a million staged rows no longer go through the WAL twice
 * (once staged, once merged). It survives a clean restart; a PostgreSQL crash empties it, which the
 * import job notices (fewer staged rows than it parsed) and answers by parsing the file again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table import_rows set unlogged`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table import_rows set logged`.execute(db);
}
