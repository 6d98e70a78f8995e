import {
  hasScopes,
  marketplaceMessages,
  messages,
  type Plan,
  type RedeemAnswer,
  type RedeemBody,
  type RedemptionList,
} from '@herald/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/connection.ts';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import type { Services } from '../../services.ts';
import { loadAccount, registerAccount } from '../accounts/accounts.service.ts';
import { assignPlan } from '../billing/plan-assignment.ts';
import { codeHashOf } from './marketplace-codes.service.ts';
import { findAccountPlan, listRedemptions, lockCode, markCodeRedeemed } from './marketplace.queries.ts';

/** Attempts per address in the window: enough for a few typos, far too few to guess codes. */
export const redeemAttemptLimit = 10;
export const redeemAttemptWindowSeconds = 15 * 60;

const registrationFields = ['email', 'idToken', 'source', 'timezone'] as const;

/**
 * POST /v1/marketplace/redeem. A visitor: registers the account as POST /v1/accounts/ does, with the code redeemed in
 * the same transaction (an unusable code creates nothing). A signed-in member with billing:write: the code goes onto
 * the current account. Every attempt counts towards the address's limit, successful or not.
 */
export async function redeemCode(
  services: Services,
  session: Session | undefined,
  body: RedeemBody,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<RedeemAnswer> {
  await enforceRateLimit(
    services.db,
    `marketplace-redeem:${request.ip}`,
    redeemAttemptLimit,
    redeemAttemptWindowSeconds,
  );
  const codeHash = codeHashOf(body.code);
  if (session) {
    if (registrationFields.some((field) => body[field] !== undefined))
      throw badRequest(marketplaceMessages.signedInNoRegistration);
    if (!hasScopes(session, ['billing:write'])) throw forbidden(marketplaceMessages.needsBillingWrite);
    const plan = await services.db
      .transaction()
      .execute((trx) => redeemOnto(trx, codeHash, session.accountId, false));
    return {
      account: await loadAccount(services.db, session, services.db, services.config),
      plan,
      accountCreated: false,
    };
  }
  if (body.email === undefined && body.idToken === undefined)
    throw badRequest(messages.missingRegistrationEmail);
  let plan: Plan | undefined;
  const account = await registerAccount(
    services,
    {
      email: body.email,
      idToken: body.idToken,
      source: body.source ?? 'marketplace',
      timezone: body.timezone,
    },
    request,
    reply,
    async (trx, created) => {
      plan = await redeemOnto(trx, codeHash, created.accountId, true);
    },
  );
  return { account, plan: plan!, accountCreated: true };
}

/** In the caller's transaction: checks and locks the code, gives the account its plan, marks the code used. */
async function redeemOnto(
  trx: Database,
  codeHash: string,
  accountId: number,
  isNewAccount: boolean,
): Promise<Plan> {
  const code = await lockCode(trx, codeHash);
  if (!code) throw notFound(marketplaceMessages.unknownCode);
  if (code.redeemedAt) throw conflict(marketplaceMessages.alreadyRedeemed, 'code-redeemed');
  if (!isNewAccount) {
    const current = await findAccountPlan(trx, accountId);
    // A code never lowers a plan, and never stacks on a subscription someone still pays for.
    if (
      current?.planProvider &&
      current.planProvider !== 'marketplace' &&
      current.planProvider !== 'operator' &&
      current.status !== 'canceled'
    ) {
      throw conflict(marketplaceMessages.paidPlanActive, 'paid-plan-active');
    }
    if (
      current?.planPeopleUpperLimit &&
      current.planPeopleUpperLimit >= code.peopleUpperLimit &&
      current.status !== 'canceled'
    ) {
      throw conflict(marketplaceMessages.planAlreadyCovers, 'plan-covers-code');
    }
  }
  const assigned = await assignPlan(trx, accountId, {
    planName: code.planName,
    peopleUpperLimit: code.peopleUpperLimit,
    provider: 'marketplace',
  });
  await markCodeRedeemed(trx, codeHash, accountId);
  return assigned.plan;
}

/** GET /v1/marketplace/redemptions: the codes used on the current account (their last characters only). */
export async function redemptionsOf(services: Services, session: Session): Promise<RedemptionList> {
  const rows = await listRedemptions(services.db, session.accountId);
  return {
    redemptions: rows.map((row) => ({
      codeHint: row.codeHint,
      planName: row.planName,
      peopleUpperLimit: row.peopleUpperLimit,
      redeemedAt: (row.redeemedAt ?? new Date(0)).toISOString(),
    })),
  };
}
