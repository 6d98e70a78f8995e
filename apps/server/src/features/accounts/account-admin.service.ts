import crypto from 'node:crypto';
import { allScopes, maxLogoBytes, teamMessages, type Account } from '@herald/contracts';
import type { z } from 'zod';
import type { CreateSubaccountBody, LogoUploadBody } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest, forbidden, notFound, unauthorized } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { hashToken, randomToken } from '../../lib/tokens.ts';
import type { EventStore } from '../../db/event-store.ts';
import type { Services } from '../../services.ts';
import { findAccount, listAccountsOfUser } from './accounts.queries.ts';
import { loadAccount } from './accounts.service.ts';
import {
  countTenantRows,
  deleteAccountRow,
  deleteTenantBatch,
  findAcceptedMembership,
  findApiKeyInfo,
  insertSubaccount,
  listOpenIssues,
  markDeleting,
  moveSession,
  setApiKey,
  useApiKey,
} from './account-admin.queries.ts';

/** Accounts at or above this many tenant rows are deleted by a background job. */
export const backgroundDeleteThreshold = 10_000;
const deleteBatchSize = 5_000;

/** GET /v1/team-members/accounts: every account the user belongs to. */
export async function listMyAccounts(services: Services, session: Session) {
  const accounts = await listAccountsOfUser(services.db, session.userId);
  return { accounts: accounts.map((a) => ({ ...a, isCurrent: a.id === session.accountId })) };
}

/** POST /v1/team-members/accounts: a sub-account of the current one, owned by the creator. */
export async function createSubaccount(
  services: Services,
  db: Database,
  session: Session,
  body: z.infer<typeof CreateSubaccountBody>,
) {
  const parent = await findAccount(db, session.accountId);
  if (!parent) throw unauthorized();
  const id = await services.db.transaction().execute((trx) =>
    insertSubaccount(trx, {
      parentId: parent.id,
      mainAccountId: parent.mainAccountId ?? parent.id,
      email: parent.email,
      phone: parent.phone,
      userId: session.userId,
      name: body.name,
      site: body.site || null,
      industry: body.industry || null,
      timezone: body.timezone ?? 'UTC',
      trialEndsAt: parent.trialEndsAt,
      flags: parent.flags,
    }),
  );
  const { accounts } = await listMyAccounts(services, session);
  return { subaccount: accounts.find((a) => a.id === id)! };
}

/** POST /v1/accounts/{id}/switch: the session now acts in that account. */
export async function switchAccount(
  services: Services,
  session: Session,
  accountId: number,
): Promise<Account> {
  const membership = await findAcceptedMembership(services.db, accountId, session.userId);
  if (!membership) throw notFound(teamMessages.notMemberOfAccount);
  await moveSession(services.db, session.id, accountId);
  return loadAccount(
    services.db,
    { userId: session.userId, accountId, teamMemberId: membership.id },
    services.db,
    services.config,
  );
}

/** DELETE /v1/accounts/{id}: at once when small, else marked and removed by the delete-account job. */
export async function deleteAccount(services: Services, session: Session, accountId: number) {
  const membership = await findAcceptedMembership(services.db, accountId, session.userId);
  if (!membership) throw notFound(teamMessages.notMemberOfAccount);
  if (!membership.isOwner) throw forbidden(teamMessages.onlyOwnersDelete);
  if (accountId === session.accountId) throw badRequest(teamMessages.cannotDeleteCurrent);
  const rows = await countTenantRows(services.db, accountId, backgroundDeleteThreshold);
  if (rows >= backgroundDeleteThreshold) {
    await services.db.transaction().execute(async (trx) => {
      await markDeleting(trx, accountId);
      await enqueueJob(trx, 'delete-account', { accountId }, { jobKey: `delete-account:${accountId}` });
    });
    return { result: 'in-progress' as const, message: teamMessages.accountDeleteInProgress };
  }
  await services.events.deleteAccount(accountId);
  await services.db.transaction().execute((trx) => deleteAccountRow(trx, accountId));
  return { result: 'deleted' as const, message: 'deleted' };
}

/** The delete-account job: remove the account's rows batch by batch (resumable), then the account. */
export async function runAccountDeletion(
  events: EventStore,
  userDb: Database,
  accountId: number,
): Promise<void> {
  // The event store first: were the job to stop after the account row went, nothing would name the events.
  await events.deleteAccount(accountId);
  while (!(await deleteTenantBatch(userDb, accountId, deleteBatchSize))) {
    // each batch commits on its own, so a restarted job continues where it stopped
  }
  await deleteAccountRow(userDb, accountId);
}

/** POST /v1/accounts/rotate-api-key: a new key, shown once; the old one stops working. */
export async function rotateApiKey(db: Database, session: Session) {
  const apiKey = `hk_${randomToken(30)}`;
  const hint = apiKey.slice(-4);
  await setApiKey(db, session.accountId, hashToken(apiKey), hint);
  return { apiKey, hint };
}

/** GET /v1/accounts/api-key: the key's last characters and when it was last used; never the key. */
export async function apiKeyInfo(db: Database, session: Session) {
  const row = await findApiKeyInfo(db, session.accountId);
  return {
    hint: row?.apiKeyHash ? row.apiKeyHint : null,
    lastUsedAt: row?.apiKeyHash ? (row.apiKeyLastUsedAt?.toISOString() ?? null) : null,
  };
}

/** The session an API key stands for: the account's owner, with every scope. */
export async function sessionFromApiKey(services: Services, key: string): Promise<Session | undefined> {
  if (!key.startsWith('hk_') || key.length > 200) return undefined;
  const owner = await useApiKey(services.pool, hashToken(key));
  if (!owner) return undefined;
  return {
    id: `api-key:${owner.accountId}`,
    accountId: owner.accountId,
    userId: owner.userId,
    teamMemberId: owner.teamMemberId,
    isOwner: true,
    scopes: allScopes(),
  };
}

export async function accountIssues(db: Database, session: Session) {
  const issues = await listOpenIssues(db, session.accountId);
  return { issues: issues.map((i) => ({ ...i, createdAt: i.createdAt.toISOString() })) };
}

/** POST /v1/accounts/logo: a signed upload URL for a new logo, valid 10 minutes. */
export function logoUploadUrl(services: Services, session: Session, body: z.infer<typeof LogoUploadBody>) {
  const extension = body.contentType.split('/')[1]!.replace('jpeg', 'jpg');
  const key = `logos/${session.accountId}-${crypto.randomBytes(12).toString('hex')}.${extension}`;
  return {
    url: services.storage.createUploadUrl(key, body.contentType, maxLogoBytes, 600),
    key,
    publicUrl: services.storage.publicUrl(key),
  };
}
