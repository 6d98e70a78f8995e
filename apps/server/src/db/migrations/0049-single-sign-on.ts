import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Single sign-on with OpenID Connect (docs/team-and-accounts.md, "Single sign-on"): one connection per main account
 * (the issuer, the client id, the client secret sealed with `encryptAtRest` under its own key, the scopes a member
 * created at first sign-in gets, whether password sign-in is off for the domains' members) and its email domains.
 * A domain belongs to one account in the whole instance (the sign-in page finds the account by it), so `domain` is
 * unique on its own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sso_connections (
      account_id bigint not null references accounts (id) on delete cascade,
      issuer text not null,
      client_id text not null,
      client_secret text not null,
      default_scopes jsonb not null,
      require_sso boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id)
    );
    create table sso_domains (
      account_id bigint not null references sso_connections (account_id) on delete cascade,
      domain text not null,
      primary key (account_id, domain)
    );
    create unique index sso_domains_domain on sso_domains (domain);
  `.execute(db);
  await protectTenantTables(db, ['sso_connections', 'sso_domains']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table sso_domains; drop table sso_connections;`.execute(db);
}
