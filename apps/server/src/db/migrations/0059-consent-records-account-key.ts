import { sql, type Kysely } from 'kysely';

/**
 * Consent records drop their key to `accounts` (issue 56, import; docs/imports.md, "Figures"). Every record names its
 * person (`person_id` is not null), and the key to `people (account_id, id)` already holds what the account key
 * held: the account exists (a person's account is a key of its own), a record cannot name another account's person,
 * and an account's delete takes its people and, through this key's cascade, their records. The second key was a
 * second locked lookup for every record: an import writes one record per person of its file in one statement, and
 * for 100,000 records the two keys cost 1.35–1.45 s, the person key alone 1.02 s.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table consent_records drop constraint consent_records_account_id_fkey`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table consent_records add constraint consent_records_account_id_fkey foreign key (account_id)
    references accounts (id) on delete cascade`.execute(db);
}
