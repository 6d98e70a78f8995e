import { sql, type Kysely } from 'kysely';

/**
 * Two-factor sign-in (docs/team-and-accounts.md, "Two-factor sign-in"). A user's TOTP secret, sealed with the server
 * secret (lib/sealed-tokens.ts, `encryptAtRest`), is written when enrolment starts and counts once `totp_enabled_at`
 * is set; `totp_last_step` is the time step of the last code accepted, so a code is good once. Recovery codes are
 * stored as SHA-256 of a random 50-bit code. Both belong to the login (users), not to an account, like sessions and
 * password resets: no account_id, no row-level policy. An account may require two-factor of its members.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table users
      add column totp_secret text,
      add column totp_enabled_at timestamptz,
      add column totp_last_step bigint;

    create table two_factor_recovery_codes (
      user_id bigint not null references users (id) on delete cascade,
      code_hash text not null,
      used_at timestamptz,
      created_at timestamptz not null default now(),
      primary key (user_id, code_hash)
    );

    alter table accounts add column require_two_factor boolean not null default false;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts drop column require_two_factor;
    drop table two_factor_recovery_codes;
    alter table users drop column totp_secret, drop column totp_enabled_at, drop column totp_last_step;
  `.execute(db);
}
