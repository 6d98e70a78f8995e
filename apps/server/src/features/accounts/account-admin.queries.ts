import { sql } from 'kysely';
import type pg from 'pg';
import { allScopes } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { randomToken } from '../../lib/tokens.ts';

/** The user's membership in an account, if accepted. */
export function findAcceptedMembership(userDb: Database, accountId: number, userId: number) {
  return userDb
    .selectFrom('teamMembers')
    .innerJoin('accounts', 'accounts.id', 'teamMembers.accountId')
    .select(['teamMembers.id', 'teamMembers.isOwner'])
    .where('teamMembers.accountId', '=', accountId)
    .where('teamMembers.userId', '=', userId)
    .where('teamMembers.acceptedAt', 'is not', null)
    .where('accounts.deletingAt', 'is', null)
    .executeTakeFirst();
}

/** A sub-account under `parentId`, owned by the user who creates it. */
export async function insertSubaccount(
  userDb: Database,
  input: {
    parentId: number;
    mainAccountId: number;
    email: string;
    phone: string | null;
    userId: number;
    name: string;
    site: string | null;
    industry: string | null;
    timezone: string;
    trialEndsAt: Date;
    flags: unknown;
  },
) {
  const account = await userDb
    .insertInto('accounts')
    .values({
      parentAccountId: input.parentId,
      mainAccountId: input.mainAccountId,
      email: input.email,
      phone: input.phone,
      name: input.name,
      site: input.site,
      industry: input.industry,
      timezone: input.timezone,
      writeKey: randomToken(18),
      trialEndsAt: input.trialEndsAt,
      flags: JSON.stringify({
        ...(input.flags as object),
        hasFilledGoals: true,
        hasSetInitialPassword: true,
      }),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await userDb
    .insertInto('teamMembers')
    .values({
      accountId: account.id,
      userId: input.userId,
      isOwner: true,
      scopes: JSON.stringify(allScopes()),
      acceptedAt: sql<Date>`now()`,
    })
    .execute();
  return account.id;
}

export async function moveSession(userDb: Database, sessionId: string, accountId: number) {
  await userDb.updateTable('sessions').set({ accountId }).where('id', '=', sessionId).execute();
}

/**
 * Tenant tables whose size decides whether deleting an account runs in the background.
 * Each feature that adds a large tenant table lists it here.
 */
export const tenantTablesBySize = [
  'events',
  'event_names',
  'segment_members',
  'people',
  'segment_dirty_people',
  'segment_dirty_accounts',
  'mail_deliveries',
] as const;

/** Rows the account holds across the large tenant tables, counted up to `limit`. */
export async function countTenantRows(userDb: Database, accountId: number, limit: number): Promise<number> {
  let total = 0;
  for (const table of tenantTablesBySize) {
    const row = await sql<{
      n: number;
    }>`select count(*)::int as n from (select 1 from ${sql.table(table)} where account_id = ${accountId} limit ${limit}) t`
      .execute(userDb)
      .then((r) => r.rows[0]!);
    total += row.n;
    if (total >= limit) break;
  }
  return total;
}

export async function markDeleting(userDb: Database, accountId: number) {
  await userDb
    .updateTable('accounts')
    .set({ deletingAt: sql<Date>`now()` })
    .where('id', '=', accountId)
    .execute();
  await userDb.deleteFrom('sessions').where('accountId', '=', accountId).execute();
}

/** Delete one batch of the account's rows; true when nothing is left but the account row itself. */
export async function deleteTenantBatch(
  userDb: Database,
  accountId: number,
  batch: number,
): Promise<boolean> {
  for (const table of tenantTablesBySize) {
    const res =
      await sql`delete from ${sql.table(table)} where ctid in (select ctid from ${sql.table(table)} where account_id = ${accountId} limit ${batch})`.execute(
        userDb,
      );
    if (Number(res.numAffectedRows ?? 0) > 0) return false;
  }
  return true;
}

export async function deleteAccountRow(userDb: Database, accountId: number) {
  await userDb
    .updateTable('accounts')
    .set({ parentAccountId: null })
    .where('parentAccountId', '=', accountId)
    .execute();
  await userDb.deleteFrom('accounts').where('id', '=', accountId).execute();
}

export async function setApiKey(db: Database, accountId: number, hash: string, hint: string) {
  await db
    .updateTable('accounts')
    .set({ apiKeyHash: hash, apiKeyHint: hint, apiKeyLastUsedAt: null })
    .where('id', '=', accountId)
    .execute();
}

export function findApiKeyInfo(db: Database, accountId: number) {
  return db
    .selectFrom('accounts')
    .select(['apiKeyHash', 'apiKeyHint', 'apiKeyLastUsedAt'])
    .where('id', '=', accountId)
    .executeTakeFirst();
}

/**
 * The account an API key belongs to, with its first owner, whom the key acts as; the key's last use is noted on the
 * way, at most once a minute. One statement, prepared once a connection (planning the two parts took about as long
 * as running them), so a request by API key costs one short round trip before its own work
 * (docs/team-and-accounts.md, "API keys").
 */
export async function useApiKey(pool: pg.Pool, hash: string) {
  const { rows } = await pool.query<{ accountId: number; teamMemberId: number; userId: number }>({
    name: 'herald-use-api-key',
    text: `with owner as (
        select a.id as account_id, t.id as team_member_id, t.user_id from accounts a
        join team_members t on t.account_id = a.id
        where a.api_key_hash = $1 and a.deleting_at is null and t.is_owner and t.accepted_at is not null
        order by t.id limit 1
      ), touched as (
        update accounts set api_key_last_used_at = now() where id = (select account_id from owner)
          and (api_key_last_used_at is null or api_key_last_used_at < now() - interval '1 minute')
      )
      select account_id as "accountId", team_member_id as "teamMemberId", user_id as "userId" from owner`,
    values: [hash],
  });
  // bigint columns arrive as numbers (db/connection.ts).
  return rows[0];
}

export function listOpenIssues(db: Database, accountId: number) {
  return db
    .selectFrom('accountIssues')
    .select(['id', 'kind', 'message', 'createdAt'])
    .where('accountId', '=', accountId)
    .where('resolvedAt', 'is', null)
    .orderBy('id', 'desc')
    .execute();
}
