import { sql, type Kysely } from 'kysely';

/**
 * Sessions shown on the profile (docs/team-and-accounts.md, "Sessions"): each gets a random handle that the list and
 * "sign out" name, so that neither the cookie's token nor its stored SHA-256 leaves the server. An account's API key
 * records when it was last used.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table sessions add column handle uuid not null default gen_random_uuid();
    alter table accounts add column api_key_last_used_at timestamptz;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts drop column api_key_last_used_at;
    alter table sessions drop column handle;
  `.execute(db);
}
