import type { ScopeState } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

// Single sign-on connections (migration 0049). Settings are read and written in the account's own transaction; the
// sign-in reads them by email domain on the owner connection, before anyone is signed in.

export interface SsoConnectionRow {
  accountId: number;
  issuer: string;
  clientId: string;
  clientSecret: string;
  defaultScopes: ScopeState[];
  requireSso: boolean;
  updatedAt: Date;
  domains: string[];
}

function connections(db: Database) {
  return db
    .selectFrom('ssoConnections as c')
    .select((eb) => [
      'c.accountId',
      'c.issuer',
      'c.clientId',
      'c.clientSecret',
      'c.defaultScopes',
      'c.requireSso',
      'c.updatedAt',
      eb
        .fn<string[]>('coalesce', [
          sql`(select array_agg(d.domain order by d.domain) from sso_domains d where d.account_id = c.account_id)`,
          sql`'{}'::text[]`,
        ])
        .as('domains'),
    ]);
}

const toRow = (row: Awaited<ReturnType<ReturnType<typeof connections>['executeTakeFirst']>>) =>
  row
    ? ({ ...row, defaultScopes: row.defaultScopes as unknown as ScopeState[] } as SsoConnectionRow)
    : undefined;

export async function findSsoConnection(db: Database, accountId: number) {
  return toRow(await connections(db).where('c.accountId', '=', accountId).executeTakeFirst());
}

/** The connection whose domains include this one (owner connection: no account is chosen yet). */
export async function findSsoConnectionByDomain(db: Database, domain: string) {
  return toRow(
    await connections(db)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('ssoDomains as d')
            .select('d.domain')
            .whereRef('d.accountId', '=', 'c.accountId')
            .where('d.domain', '=', domain),
        ),
      )
      .executeTakeFirst(),
  );
}

/** Which of these domains another account already signs in with (owner connection: it looks across accounts). */
export async function findDomainsOfOtherAccounts(db: Database, accountId: number, domains: string[]) {
  if (domains.length === 0) return [];
  const rows = await db
    .selectFrom('ssoDomains')
    .select('domain')
    .where('domain', 'in', domains)
    .where('accountId', '!=', accountId)
    .execute();
  return rows.map((r) => r.domain);
}

export async function saveSsoConnection(
  db: Database,
  row: Omit<SsoConnectionRow, 'updatedAt' | 'domains'>,
  domains: string[],
) {
  const values = { ...row, defaultScopes: JSON.stringify(row.defaultScopes) };
  await db
    .insertInto('ssoConnections')
    .values(values)
    .onConflict((oc) =>
      oc.column('accountId').doUpdateSet({
        issuer: values.issuer,
        clientId: values.clientId,
        clientSecret: values.clientSecret,
        defaultScopes: values.defaultScopes,
        requireSso: values.requireSso,
        updatedAt: sql<Date>`now()`,
      }),
    )
    .execute();
  await db.deleteFrom('ssoDomains').where('accountId', '=', row.accountId).execute();
  await db
    .insertInto('ssoDomains')
    .values(domains.map((domain) => ({ accountId: row.accountId, domain })))
    .execute();
}

export async function deleteSsoConnection(db: Database, accountId: number) {
  const row = await db
    .deleteFrom('ssoConnections')
    .where('accountId', '=', accountId)
    .returning('accountId')
    .executeTakeFirst();
  return Boolean(row);
}

export function findMainAccountOf(db: Database, accountId: number) {
  return db
    .selectFrom('accounts')
    .select(['id', 'parentAccountId', 'deletingAt'])
    .where('id', '=', accountId)
    .executeTakeFirst();
}

/** Whether the user is an accepted owner of the account: the owner keeps password sign-in under "require SSO". */
export async function isAccountOwner(db: Database, accountId: number, userId: number) {
  const row = await db
    .selectFrom('teamMembers')
    .select('id')
    .where('accountId', '=', accountId)
    .where('userId', '=', userId)
    .where('isOwner', '=', true)
    .where('acceptedAt', 'is not', null)
    .executeTakeFirst();
  return Boolean(row);
}

/**
 * The user's membership after a single sign-on: a new user (no password) and a new accepted member with the default
 * scopes, or an open invitation accepted; an existing membership is kept as it is (its scopes are the team's choice).
 */
export async function ensureSsoMember(
  db: Database,
  accountId: number,
  identity: { email: string; name: string | null },
  defaultScopes: ScopeState[],
) {
  return db.transaction().execute(async (trx) => {
    let user = await trx
      .selectFrom('users')
      .select('id')
      .where(sql<string>`lower(email)`, '=', identity.email.toLowerCase())
      .executeTakeFirst();
    user ??= await trx
      .insertInto('users')
      .values({ email: identity.email.toLowerCase(), name: identity.name })
      .returning('id')
      .executeTakeFirstOrThrow();
    const member = await trx
      .selectFrom('teamMembers')
      .select(['id', 'acceptedAt'])
      .where('accountId', '=', accountId)
      .where('userId', '=', user.id)
      .executeTakeFirst();
    if (member) {
      if (!member.acceptedAt)
        await trx
          .updateTable('teamMembers')
          .set({ acceptedAt: sql<Date>`now()` })
          .where('accountId', '=', accountId)
          .where('id', '=', member.id)
          .execute();
      return { userId: user.id, memberId: member.id, created: false };
    }
    const created = await trx
      .insertInto('teamMembers')
      .values({
        accountId,
        userId: user.id,
        name: identity.name,
        isOwner: false,
        scopes: JSON.stringify(defaultScopes),
        invitedBy: null,
        invitedAt: sql<Date>`now()`,
        acceptedAt: sql<Date>`now()`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { userId: user.id, memberId: created.id, created: true };
  });
}
