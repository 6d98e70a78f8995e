import {
  messages,
  type Account,
  type AccountFlags,
  type CreateAccountBody,
  type ScopeState,
  type UpdateAccountBody,
  hasScopes,
} from '@herald/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/connection.ts';
import { badRequest, conflict, forbidden, unauthorized } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { startSession } from '../../http/session-cookie.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import { assertStrongPassword } from '../../lib/password-strength.ts';
import { hashPassword } from '../../lib/passwords.ts';
import type { Services } from '../../services.ts';
import { canAccessAIWriter } from '../ai-writer/ai-writer.access.ts';
import { accountPayment, effectiveStatus } from '../billing/billing.service.ts';
import { countAccountPeople } from '../billing/billing.queries.ts';
import { findUserByEmail, findUserById, setPasswordHash } from './users.queries.ts';
import {
  activeServiceIds,
  fillMemberName,
  findAccount,
  findTeamMember,
  insertUserWithAccount,
  listAccountsOfUser,
  markPasswordSetOnOwnedAccounts,
  mergeAccountJson,
  updateAccount,
  type AccountChanges,
} from './accounts.queries.ts';

const defaultFlags: AccountFlags = {
  hasFilledGoals: false,
  hasSetInitialPassword: false,
  canAccessAIWriter: false,
  hideAnonymous: false,
};

/**
 * The account as GET /v1/accounts returns it, seen by the session's team member. `userDb` reads
 * the user's other accounts for the switcher, which an account-scoped transaction cannot see.
 * `config.billing.mode` decides whether a trial ends and whether `payment` is shown; `config.ai` whether the AI writer is on.
 */
export async function loadAccount(
  db: Database,
  session: Pick<Session, 'accountId' | 'teamMemberId' | 'userId'>,
  userDb: Database,
  config: Pick<Config, 'billing' | 'ai'>,
): Promise<Account> {
  const billingMode = config.billing.mode;
  const account = await findAccount(db, session.accountId);
  const member = await findTeamMember(db, session.accountId, session.teamMemberId);
  const accounts = await listAccountsOfUser(userDb, session.userId);
  if (!account || !member) throw unauthorized();
  // BILLING_MODE=plans: a trial ends on its own date, derived here so it is right before the trial job runs; off: never.
  const status = effectiveStatus(billingMode, account.status, account.trialEndsAt);
  return {
    accountId: account.id,
    mainAccountId: account.mainAccountId ?? account.id,
    name: account.name,
    accountName: account.accountName ?? account.name,
    email: account.email,
    phone: account.phone,
    site: account.site,
    industry: account.industry,
    estimatedContacts: account.estimatedContacts,
    goals: account.goals,
    previousTool: account.previousTool,
    timezone: account.timezone,
    logo: account.logo,
    emailFonts: account.emailFonts as Account['emailFonts'],
    status,
    approved: account.approved,
    blocked: account.blocked,
    testAccount: account.testAccount,
    peopleCount: await countAccountPeople(db, account.id),
    writeKey: account.writeKey,
    mailingAddress: account.mailingAddress,
    linkUTMs: account.linkUtms,
    defaultFromName: account.defaultFromName,
    defaultFromEmail: account.defaultFromEmail,
    activeServices: await activeServiceIds(db, account.id),
    peopleTableFields: account.peopleTableFields as Account['peopleTableFields'],
    formFieldMappings: account.formFieldMappings as Account['formFieldMappings'],
    trackingUnknownTraits: account.trackingUnknownTraits as Account['trackingUnknownTraits'],
    onboarding: account.onboarding as Account['onboarding'],
    flags: {
      ...defaultFlags,
      ...(account.flags as Partial<AccountFlags>),
      canAccessAIWriter: canAccessAIWriter(config, account),
    },
    payment: accountPayment(billingMode, account),
    createdAt: account.createdAt.toISOString(),
    trialEndsAt: account.trialEndsAt.toISOString(),
    teamMemberId: member.id,
    teamMember: {
      id: member.id,
      name: member.name ?? member.userName,
      email: member.email,
      accountId: member.accountId,
      data: { createdWithGoogleSignin: member.createdWithGoogle },
      accountData: { isOwner: member.isOwner, scopes: member.scopes as unknown as ScopeState[] },
    },
    allAccounts: accounts.map(({ id, name, site, logo }) => ({ id, name, site, logo })),
  };
}

/** Work another feature adds to a registration's transaction (a marketplace code): a throw undoes the registration. */
export type WithinRegistration = (
  trx: Database,
  created: { userId: number; accountId: number; teamMemberId: number },
) => Promise<void>;

/** POST /v1/accounts/: a new user, their account and a session. */
export async function registerAccount(
  services: Services,
  body: CreateAccountBody,
  request: FastifyRequest,
  reply: FastifyReply,
  withinRegistration?: WithinRegistration,
): Promise<Account> {
  await enforceRateLimit(services.db, `register:${request.ip}`, 30, 3600);
  let email = body.email ?? '';
  let name: string | null = null;
  let googleSub: string | null = null;
  if (body.idToken) {
    const identity = await services.google.verify(body.idToken);
    ({ email, name } = identity);
    googleSub = identity.sub;
  }
  if (await findUserByEmail(services.db, email))
    throw conflict(messages.emailAlreadyRegistered, 'email-taken');
  const created = await services.db
    .transaction()
    .execute(async (trx) => {
      const inserted = await insertUserWithAccount(trx, {
        email,
        name,
        googleSub,
        source: body.source ?? null,
        timezone: body.timezone ?? 'UTC',
      });
      await withinRegistration?.(trx, inserted);
      return inserted;
    })
    .catch((error: { code?: string }) => {
      // Two sign-ups with one email at the same moment: the unique index decides.
      if (error.code === '23505') throw conflict(messages.emailAlreadyRegistered, 'email-taken');
      throw error;
    });
  await startSession(services, request, reply, created.userId, created.accountId);
  return loadAccount(services.db, created, services.db, services.config);
}

const settingsNeedingAccountWrite = ['name', 'site', 'phone', 'timezone', 'logo'] as const;
/** Email settings (Settings → Email): account:write or emailSettings:write may change them. */
const emailSettings = [
  'mailingAddress',
  'linkUTMs',
  'emailFonts',
  'defaultFromName',
  'defaultFromEmail',
] as const;
/** Saved only when non-empty and changed (docs/team-and-accounts.md). */
const keptUnlessEmpty = ['name', 'site', 'phone', 'timezone', 'mailingAddress'] as const;

/** PATCH /v1/accounts/me, in the session's account-scoped transaction `db`. */
export async function updateMyAccount(
  services: Services,
  db: Database,
  session: Session,
  body: UpdateAccountBody,
): Promise<Account> {
  const member = { isOwner: session.isOwner, scopes: session.scopes };
  if (
    settingsNeedingAccountWrite.some((key) => body[key] !== undefined) &&
    !hasScopes(member, ['account:write'])
  ) {
    throw forbidden("You need the account:write permission to change the account's settings.");
  }
  if (
    emailSettings.some((key) => body[key] !== undefined) &&
    !hasScopes(member, ['account:write']) &&
    !hasScopes(member, ['emailSettings:write'])
  ) {
    throw forbidden('You need the emailSettings:write permission to change the email settings.');
  }
  const current = await findAccount(db, session.accountId);
  if (!current) throw unauthorized();
  const changes: AccountChanges = {};
  for (const key of keptUnlessEmpty) {
    const value = body[key]?.trim();
    if (value && value !== current[key]) changes[key] = value;
  }
  if (body.logo !== undefined) {
    // Only a logo uploaded through POST /v1/accounts/logo: the app shows it on every page.
    if (body.logo && !body.logo.startsWith(services.storage.publicUrl('logos/')))
      throw badRequest('Upload the logo first; its address comes from the upload.');
    changes.logo = body.logo || null;
  }
  if (body.industry) changes.industry = body.industry;
  if (body.estimatedContacts) changes.estimatedContacts = body.estimatedContacts;
  if (body.goals) changes.goals = body.goals;
  if (body.previousTool !== undefined) changes.previousTool = body.previousTool || null;
  if (body.linkUTMs !== undefined) changes.linkUtms = body.linkUTMs;
  if (body.peopleTableFields) changes.peopleTableFields = JSON.stringify(body.peopleTableFields);
  if (body.formFieldMappings) changes.formFieldMappings = JSON.stringify(body.formFieldMappings);
  if (body.emailFonts) changes.emailFonts = JSON.stringify(body.emailFonts);
  if (body.trackingUnknownTraits) changes.trackingUnknownTraits = body.trackingUnknownTraits;
  if (body.defaultFromName !== undefined) changes.defaultFromName = body.defaultFromName.trim() || null;
  if (body.defaultFromEmail !== undefined) changes.defaultFromEmail = body.defaultFromEmail || null;

  // Onboarding actions are set once: only keys not yet true are written.
  const done = current.onboarding as Record<string, boolean>;
  const newActions = Object.fromEntries(
    Object.keys(body.onboarding ?? {})
      .filter((k) => !done[k])
      .map((k) => [k, true]),
  );

  await updateAccount(db, session.accountId, changes);
  if (Object.keys(newActions).length) await mergeAccountJson(db, session.accountId, 'onboarding', newActions);
  if (body.flags && Object.keys(body.flags).length)
    await mergeAccountJson(db, session.accountId, 'flags', body.flags);
  if (changes.name) await fillMemberName(db, services.db, session.accountId, session.userId, changes.name);
  return loadAccount(db, session, services.db, services.config);
}

/** POST /v1/accounts/initial-password: the wizard's last step; later changes go through a reset. */
export async function setInitialPassword(
  services: Services,
  db: Database,
  session: Session,
  password: string,
): Promise<Account> {
  const user = await findUserById(services.db, session.userId);
  if (!user) throw unauthorized();
  if (user.passwordHash) throw conflict(messages.initialPasswordAlreadySet, 'password-set');
  assertStrongPassword(password, [user.email, user.name]);
  const passwordHash = await hashPassword(password);
  // The login is the user's, across accounts: written outside the account-scoped transaction.
  await services.db.transaction().execute(async (trx) => {
    await setPasswordHash(trx, session.userId, passwordHash);
    await markPasswordSetOnOwnedAccounts(trx, session.userId);
  });
  return loadAccount(db, session, services.db, services.config);
}
