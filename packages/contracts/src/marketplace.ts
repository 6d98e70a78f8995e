/**
 * Marketplace registration (docs/billing.md): a code bought on a deal marketplace gives
 * the account a marketplace plan. Owner: docs/billing.md, "Marketplace registration".
 */
import { z } from 'zod';
import { Account, EmailAddress, IdToken, TimeZone } from './accounts.ts';
import { Plan } from './plans.ts';

export const marketplaceMessages = {
  alreadyRedeemed: 'This code has already been redeemed.',
  unknownCode: "We don't know this code. Check it against your marketplace purchase and try again.",
  missingCode: 'Enter your marketplace code.',
  codeCharacters: 'A code has only letters, digits and dashes.',
  signedInNoRegistration:
    'You are signed in, so the code goes onto your current account. Send only the code, or log out to register a new account.',
  needsBillingWrite: 'You need the billing:write permission to redeem a code onto this account.',
  planAlreadyCovers:
    "This account's plan already covers as many people as this code gives. The code was not used.",
  paidPlanActive:
    'This account pays for its plan through a payment provider. Cancel that subscription first, or redeem the code on a new account. The code was not used.',
} as const;

/** What a person types: letters, digits and dashes (spaces around it are dropped); case does not matter. */
export const MarketplaceCode = z
  .string()
  .trim()
  .min(1, marketplaceMessages.missingCode)
  .max(100, 'A code has at most 100 characters.')
  .regex(/^[A-Za-z0-9-]+$/, marketplaceMessages.codeCharacters);

/** The form a code is stored and compared in: trimmed, upper case (codes are read out and retyped). */
export function normalizeMarketplaceCode(code: string): string {
  return code.trim().toUpperCase();
}

/**
 * POST /v1/marketplace/redeem. Without a session: the code plus what POST /v1/accounts/ needs (an email or a Google
 * idToken; source and timezone optional) registers a new account. With a session: only the code, redeemed onto
 * the current account.
 */
export const RedeemBody = z.strictObject({
  code: MarketplaceCode,
  email: EmailAddress.optional(),
  idToken: IdToken.optional(),
  source: z.string().trim().max(200, 'Must be at most 200 characters.').optional(),
  timezone: TimeZone.optional(),
});
export type RedeemBody = z.infer<typeof RedeemBody>;

export const RedeemAnswer = z.object({
  /** The account as GET /v1/accounts answers it, after the redemption. */
  account: Account,
  /** The marketplace plan the code gave. */
  plan: Plan,
  /** true when this call registered the account (the visitor continues in the wizard). */
  accountCreated: z.boolean(),
});
export type RedeemAnswer = z.infer<typeof RedeemAnswer>;

/** One code used on the account, as GET /v1/marketplace/redemptions lists it (never the code itself). */
export const Redemption = z.object({
  codeHint: z.string(),
  planName: z.string(),
  peopleUpperLimit: z.number().int(),
  redeemedAt: z.string(),
});
export type Redemption = z.infer<typeof Redemption>;

export const RedemptionList = z.object({ redemptions: z.array(Redemption) });
export type RedemptionList = z.infer<typeof RedemptionList>;
