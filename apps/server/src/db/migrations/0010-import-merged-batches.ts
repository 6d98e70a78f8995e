import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * An import merges its staged rows in batches on two connections at once, so batches no longer finish
 * in order: each merged batch is recorded here, in its own transaction, and a restarted import merges
 * the batches not recorded (the merged row count stays as the progress).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table import_merged_batches (
      account_id bigint not null,
      import_id bigint not null,
      batch_no integer not null,
      primary key (account_id, import_id, batch_no),
      foreign key (account_id, import_id) references imports (account_id, id) on delete cascade
    )`.execute(db);
  await protectTenantTables(db, ['import_merged_batches']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table import_merged_batches`.execute(db);
}
