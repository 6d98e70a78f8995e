import { domainOfAddress, sendingMessages } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { AppError } from '../../http/errors.ts';

/** How an account may send from an address: its own verification, a verified domain, a test account, or not at all. */
export type SenderStanding =
  { allowed: true; by: 'address' | 'domain' | 'test-account'; domainId: number | null } | { allowed: false };

/**
 * The sending rule (docs/senders-and-consent.md), used by every send: an address may be used when it was verified by
 * its link or its domain is verified; test accounts skip the check. A verified domain also names the DKIM
 * key that signs the message.
 */
export async function senderStanding(
  db: Database,
  accountId: number,
  address: string,
): Promise<SenderStanding> {
  const email = address.trim().toLowerCase();
  const domain = domainOfAddress(email);
  const [account, own, verifiedDomain] = await Promise.all([
    db.selectFrom('accounts').select('testAccount').where('id', '=', accountId).executeTakeFirst(),
    db
      .selectFrom('senderAddresses')
      .select('status')
      .where('accountId', '=', accountId)
      .where('email', '=', email)
      .executeTakeFirst(),
    domain
      ? db
          .selectFrom('senderDomains')
          .select('id')
          .where('accountId', '=', accountId)
          .where('domain', '=', domain)
          .where('status', '=', 'verified')
          .executeTakeFirst()
      : undefined,
  ]);
  const domainId = verifiedDomain ? Number(verifiedDomain.id) : null;
  if (domainId !== null) return { allowed: true, by: 'domain', domainId };
  if (own?.status === 'verified') return { allowed: true, by: 'address', domainId: null };
  if (account?.testAccount) return { allowed: true, by: 'test-account', domainId: null };
  return { allowed: false };
}

/** Refuse a send from an address the account has not proved: 422 'Address {address} has not been verified for sending email.' */
export async function assertMaySendFrom(
  db: Database,
  accountId: number,
  address: string,
): Promise<Extract<SenderStanding, { allowed: true }>> {
  const standing = await senderStanding(db, accountId, address);
  if (!standing.allowed)
    throw new AppError('UnprocessableError', sendingMessages.notVerified(address.trim()), {
      errorCode: 'senderNotVerified',
    });
  return standing;
}
