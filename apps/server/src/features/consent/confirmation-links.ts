import { consentLimits } from '@herald/contracts';
import { openToken, sealToken } from '../../lib/sealed-tokens.ts';

/**
 * The confirm link of a confirmation email: a sealed token naming the account, the person and the address it was
 * sent to. It confirms for 7 days (`v`); the seal itself lasts 30 days longer, so an expired link is still known as
 * this person's and can ask for a new email instead of being just "invalid".
 */
const graceDays = 30;

export interface ConfirmationRef {
  accountId: number;
  personId: number;
  /** The address (lower case) the email went to: a link for an address the person no longer has confirms nothing. */
  email: string;
  /** Until when (ms since the epoch) the link confirms. */
  validUntil: number;
}

export function confirmationToken(
  secret: string,
  ref: Omit<ConfirmationRef, 'validUntil'>,
  now = Date.now(),
): string {
  const days = consentLimits.tokenDays;
  return sealToken(
    { a: ref.accountId, p: ref.personId, e: ref.email, v: Math.floor(now / 1000) + days * 86_400 },
    secret,
    'confirmation',
    (days + graceDays) * 86_400,
    now,
  );
}

export function readConfirmationToken(
  secret: string,
  token: string,
  now = Date.now(),
): ConfirmationRef | null {
  const payload = openToken(token, secret, 'confirmation', now);
  if (
    !payload ||
    typeof payload.a !== 'number' ||
    typeof payload.p !== 'number' ||
    typeof payload.e !== 'string' ||
    typeof payload.v !== 'number'
  )
    return null;
  return { accountId: payload.a, personId: payload.p, email: payload.e, validUntil: payload.v * 1000 };
}
