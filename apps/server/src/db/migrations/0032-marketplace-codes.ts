import { sql, type Kysely } from 'kysely';

/**
 * Marketplace registration (issue 21): the redeemable codes an operator loads. A code is a bearer secret, so only
 * its SHA-256 is kept (plus its last four characters, for the operator's list); the plan it grants is named here.
 * Not a tenant table: the operator fills it and only the marketplace service reads it, so the tenant role
 * herald_app gets no access at all (the default privileges of 0002 would give it some).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table marketplace_codes (
      code_hash text primary key,
      code_hint text not null,
      plan_name text not null,
      people_upper_limit integer not null check (people_upper_limit > 0),
      created_at timestamptz not null default now(),
      redeemed_at timestamptz,
      redeemed_by_account_id bigint references accounts (id) on delete set null,
      check (redeemed_by_account_id is null or redeemed_at is not null)
    )`.execute(db);
  await sql`create index marketplace_codes_account_idx on marketplace_codes (redeemed_by_account_id) where redeemed_by_account_id is not null`.execute(
    db,
  );
  await sql`revoke all on marketplace_codes from herald_app`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table marketplace_codes`.execute(db);
}
